/**
 * Which organization's records a request reads and writes: the id every store call, every
 * idempotency key and the exam directory's cache are scoped by.
 *
 * Handlers never name an organization themselves: each is given an `OrganizationIdOf`
 * and asks it with the request, so the router chooses the organization in one place
 * (`oralAssessments` in router/index.ts) for every feature at once.
 */
import type { Request } from "express";

/** The organization id a request acts for (see `isOrganizationId`). */
export type OrganizationIdOf = (req: Request) => string;
