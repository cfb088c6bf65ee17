/**
 * The page options (`homeUrl`, `renderPage`) as a schema, read with the router's own
 * (settings.ts): problems go to the router's list (one ConfigurationError for all).
 */
import { checked, fn, optional, withDefault } from "../../core/option-schema.js";
import { checkSiteUrl } from "./checks.js";
import type { PageSettings } from "./html.js";

export const pageSchema = {
  homeUrl: withDefault(checked((v, option, problems) => checkSiteUrl(v, option, problems, "/")), "/"),
  renderPage: optional(fn<PageSettings["renderPage"]>(), { fix: "Pass a function (req, res, page) => … or leave renderPage out for the built-in pages." }),
};
