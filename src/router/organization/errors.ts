/** What the organization lookup throws: the resolver failed (503 on the routes), or an answer given without a request is unusable. */

/** Thrown when the resolver failed or answered something unusable: the routes answer 503. */
export class OrganizationUnavailable extends Error {
  override readonly name = "OrganizationUnavailable";
}

/** An organization given without a request (`adopt`) that cannot be used: what is wrong with it, never its key. */
export class InvalidOrganization extends Error {
  override readonly name = "InvalidOrganization";
  constructor(readonly problems: string[]) {
    super(`The organization cannot be used: ${problems.join("; ")}.`);
  }
}
