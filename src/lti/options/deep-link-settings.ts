/**
 * The `deep_linking_settings` claim of an `LtiDeepLinkingRequest` (Deep Linking 2.0 §4.4),
 * read into what the tool honours: where to return, whether an `ltiResourceLink` may be
 * returned at all, and how the link may be presented. `data` is kept exactly as sent, to
 * be echoed unaltered. Read once, with the rest of the launch, by typed-launch.ts.
 */
import { isLmsUrl } from "../shared/lms-url.js";

export interface DeepLinkSettings {
  returnUrl: string;
  acceptMultiple: boolean;
  /** How the placed link opens: `window` when the LMS accepts it (exams need the microphone and room), else `iframe`. */
  target: "window" | "iframe";
  /** The request's `data`, when it sent one (echoed unaltered in the response). */
  data: { value: unknown } | undefined;
}

export type SettingsRead = { settings: DeepLinkSettings } | { refused: { check: string; forAdministrator: string } };

/** `claim`: the `deep_linking_settings` claim's value. */
export function readDeepLinkSettings(claim: unknown): SettingsRead {
  const raw = claim as Record<string, unknown> | undefined;
  const refused = (check: string, forAdministrator: string): SettingsRead => ({ refused: { check, forAdministrator } });
  if (raw === null || typeof raw !== "object") return refused("deep_linking_settings", "The deep-linking request carries no deep_linking_settings claim.");
  const returnUrl = raw.deep_link_return_url;
  // The browser posts the signed placement there: https (http only on loopback), as every URL an LMS gives.
  if (!isLmsUrl(returnUrl)) {
    return refused("deep_link_return_url", "The deep-linking request's deep_link_return_url is missing or not an https URL (http only on the loopback interface).");
  }
  const types = Array.isArray(raw.accept_types) ? raw.accept_types : [];
  if (!types.includes("ltiResourceLink")) {
    return refused("accept_types", `This tool places exams as LTI resource links (ltiResourceLink), which this placement does not accept (it accepts ${types.length > 0 ? types.map(String).join(", ") : "nothing"}). Add the tool from a placement that takes LTI links, e.g. an assignment or module item.`);
  }
  const targets = Array.isArray(raw.accept_presentation_document_targets) ? raw.accept_presentation_document_targets : [];
  const target = targets.includes("window") ? "window" : targets.includes("iframe") ? "iframe" : undefined;
  if (!target) {
    return refused("accept_presentation_document_targets", `An exam opens in a window or a frame; this placement accepts only ${targets.length > 0 ? targets.map(String).join(", ") : "no presentation"}.`);
  }
  return {
    settings: {
      returnUrl, target,
      acceptMultiple: raw.accept_multiple === true,
      data: "data" in raw ? { value: raw.data } : undefined,
    },
  };
}
