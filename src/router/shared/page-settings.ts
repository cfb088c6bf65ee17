/**
 * The page options (`homeUrl`, `renderPage`) as a schema; problems are added to the
 * router's list (one ConfigurationError for all).
 */
import type { ProblemList } from "../../core/configuration-error.js";
import type { Logger } from "../../core/logger.js";
import { checked, fn, optional, readOptions, withDefault } from "../../core/option-schema.js";
import { checkSiteUrl } from "./checks.js";
import type { PageSettings } from "./html.js";

export const pageSchema = {
  homeUrl: withDefault(checked((v, option, problems) => checkSiteUrl(v, option, problems, "/")), "/"),
  renderPage: optional(fn<PageSettings["renderPage"]>(), { fix: "Pass a function (req, res, page) => … or leave renderPage out for the built-in pages." }),
};

export function resolvePageSettings(o: unknown, problems: ProblemList, logger: Logger): PageSettings {
  const { homeUrl, renderPage } = readOptions(pageSchema, o, problems);
  return { homeUrl: homeUrl ?? "/", renderPage, logger };
}
