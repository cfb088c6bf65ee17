/**
 * The LMS emulator's fault switches: each mints one kind of bad launch token of the
 * LTI 1.3 checks (1EdTech Security Framework §5.1.3, LTI Core §5.3), so a tool's
 * refusals can be tested over real HTTP.
 */
export const LMS_FAULTS = [
  "bad_signature",      // signed by a key not in the key set, under a listed kid
  "alg_none",           // unsigned (`alg: none`)
  "hs256",              // HS256, keyed with the public key's bytes (alg confusion)
  "unknown_kid",        // a kid the key set does not hold
  "no_kid",             // signed by the set's key, with no kid in the header
  "not_lti",            // a signed JWT that is no LTI launch at all ({ name: "badltilaunch" })
  "expired",            // exp in the past (beyond any tolerance)
  "future_iat",         // iat an hour ahead
  "wrong_iss",          // another issuer
  "wrong_aud",          // another client id
  "aud_array_no_azp",   // aud an array with our client id, no azp
  "azp_mismatch",       // azp another client id
  "wrong_nonce",        // not the nonce of the authorization request
  "unknown_deployment", // a deployment id the tool does not know
  "wrong_version",      // version 1.1
  "bad_message_type",   // a message type the tool does not take
  "no_roles",           // the roles claim left out
  "target_mismatch",    // target_link_uri pointing elsewhere (open redirect attempt)
  "no_email",           // the email claim withheld (Canvas privacy levels)
] as const;

export type LmsFault = (typeof LMS_FAULTS)[number];
