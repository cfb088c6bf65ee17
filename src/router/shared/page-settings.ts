/**
 * The page options (`homeUrl`, `renderPage`) resolved and checked; problems are added to
 * the router's list (one ConfigurationError for all).
 */
import type { ProblemList } from "../../core/configuration-error.js";
import type { Logger } from "../../core/logger.js";
import { checkSiteUrl, optionalFunction } from "./checks.js";
import type { PageSettings } from "./html.js";
import type { OralAssessmentsOptions } from "./options.js";

export function resolvePageSettings(o: Partial<OralAssessmentsOptions>, problems: ProblemList, logger: Logger): PageSettings {
  const homeUrl = o.homeUrl === undefined ? "/" : (checkSiteUrl(o.homeUrl, "homeUrl", problems, "/") ?? "/");
  const renderPage = optionalFunction(problems, "renderPage", o.renderPage, "Pass a function (req, res, page) => … or leave renderPage out for the built-in pages.");
  return { homeUrl, renderPage, logger };
}
