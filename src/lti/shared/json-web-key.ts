/**
 * An RSA private key as a JSON Web Key (RFC 7517/7518), as `lti.keys[].privateKey` takes
 * it. Our own minimal type rather than `node:crypto`'s `JsonWebKey`, which `@types/node`
 * 26 no longer exports: the shipped declarations must compile against whichever
 * `@types/node` the app has, without `skipLibCheck`.
 */
export interface LtiJsonWebKey {
  /** `"RSA"`. */
  kty?: string;
  n?: string;
  e?: string;
  d?: string;
  p?: string;
  q?: string;
  dp?: string;
  dq?: string;
  qi?: string;
  kid?: string;
  alg?: string;
  use?: string;
}
