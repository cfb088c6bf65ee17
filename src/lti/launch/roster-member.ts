/**
 * One member as kept from NRPS (the roster keeps it; typed-launch.ts builds a member's
 * launch from it, `memberLaunch`): only the fields a sign-in and `canLaunch` need. Whatever
 * else the LMS lists (messages, custom fields, pictures: tens of KB a member) is dropped
 * as each page is read, so a roster's memory is bounded by its learners, not its LMS.
 */
export interface RosterMember {
  user_id: string;
  status?: string;
  roles: string[];
  name?: string;
  given_name?: string;
  middle_name?: string;
  family_name?: string;
  email?: string;
  lis_person_sourcedid?: string;
}
