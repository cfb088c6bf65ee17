/**
 * The 1EdTech Platform Storage client (lti-pm-s v0.1) for pages in the LMS's frame: a
 * `lti.put_data` at login and a `lti.get_data` at launch, posted to the frame the LMS named
 * (`lti_storage_target`: `_parent` or a sibling frame's name) and answered by postMessage.
 * Both subject spellings go out (`lti.*` and the older `org.imsglobal.lti.*`), and both are
 * accepted back; an answer counts only from the authorization URL's origin and with our
 * message id. Values are read back in the browser and sent to the tool, which compares
 * them: the page never decides alone.
 *
 * Hygiene: the LMS keeps these values for the tool within a small allowance (Canvas and
 * Brightspace: 4,096 characters and 500 keys per tool, Canvas in the browser's
 * localStorage, which outlives the page). Each login writes one key of 42 characters and
 * a value of 32 (74 characters), and the launch removes it once read: lti-pm-s has no
 * delete message, but a `lti.put_data` without a `value` is one for Canvas (an empty value
 * clears the key) and Brightspace (a missing value deletes it). The check page removes it
 * after reading it back; a launch whose cookie came back removes it from its answer page
 * (`forgetAfterwards`, added by `sendLtiPage`).
 */
import type { Response } from "express";
import { scriptJson } from "../../core/html.js";
import { addToPage } from "./pages.js";

/** The key a login's browser id is stored under (Canvas recommends `state-…`-like keys). */
export const storageKey = (stateId: string) => `eoa-state-${stateId}`;

/** Where a login's value is: the frame the LMS named, the LMS's origin, the key. */
export interface StorageSpot {
  target: string;
  origin: string;
  key: string;
}

/**
 * The page script: reads its settings from the `#lti-storage` JSON block
 * `{ target, origin, subject, key, value?, timeoutMs }`, posts the request, and calls
 * `done(answer)` (the `value` for get_data, true for put_data) or `done(undefined)` on an
 * error answer or after `timeoutMs`. `then` is the page's own continuation, given as the
 * body of a function of `answer`; it may call `forget()`, which removes the key.
 */
export function storageScript(then: string): string {
  return `(function(){
var cfg=JSON.parse(document.getElementById("lti-storage").textContent);
var win=cfg.target==="_parent"?window.parent:window.parent.frames[cfg.target];
var id="m"+Math.random().toString(36).slice(2)+Date.now().toString(36);
var finished=false;
${FORGET}
function forget(){removeKey(win,cfg,id+"-forget");}
function done(answer){if(finished)return;finished=true;(function(answer){${then}})(answer);}
window.addEventListener("message",function(e){
if(e.origin!==cfg.origin||!e.data||e.data.message_id!==id)return;
var s=e.data.subject;
if(s!==cfg.subject+".response"&&s!=="org.imsglobal."+cfg.subject+".response")return;
if(e.data.error){done(undefined);return;}
done(cfg.subject==="lti.get_data"?e.data.value:true);
});
if(!win){done(undefined);return;}
var msg={message_id:id,key:cfg.key};if(cfg.value!==undefined)msg.value=cfg.value;
win.postMessage(Object.assign({subject:cfg.subject},msg),cfg.origin);
win.postMessage(Object.assign({subject:"org.imsglobal."+cfg.subject},msg),cfg.origin);
setTimeout(function(){done(undefined);},cfg.timeoutMs);
})();`;
}

/** A `lti.put_data` with no value, in both spellings: no answer awaited (the page may leave at once; the message is already queued). */
const FORGET = `function removeKey(win,cfg,mid){if(!win)return;var m={message_id:mid,key:cfg.key};
win.postMessage(Object.assign({subject:"lti.put_data"},m),cfg.origin);
win.postMessage(Object.assign({subject:"org.imsglobal.lti.put_data"},m),cfg.origin);}`;

/** Adds to the page this response answers with (`sendLtiPage`) a script that removes a login's key from Platform Storage. */
export function forgetAfterwards(res: Response, spot: StorageSpot): void {
  addToPage(res, `<script type="application/json" id="lti-storage-forget">${scriptJson(spot)}</script>`, `(function(){${FORGET}
var cfg=JSON.parse(document.getElementById("lti-storage-forget").textContent);
removeKey(cfg.target==="_parent"?window.parent:window.parent.frames[cfg.target],cfg,"f"+Math.random().toString(36).slice(2));
})();`);
}
