/**
 * The key that binds something to one student: a launch attempt, a prepared token. Both
 * the id and the (case-folded) e-mail must match, so an account that reuses one of the
 * two never gets another student's token.
 */
export function studentKey(student: { orgInternalId: string; email: string }): string {
  return `${student.orgInternalId}\u0000${student.email.trim().toLowerCase()}`;
}
