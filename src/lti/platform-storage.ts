/**
 * The 1EdTech Platform Storage client (lti-pm-s v0.1) for pages in the LMS's frame: a
 * `lti.put_data` at login and a `lti.get_data` at launch, posted to the frame the LMS named
 * (`lti_storage_target`: `_parent` or a sibling frame's name) and answered by postMessage.
 * Both subject spellings go out (`lti.*` and the older `org.imsglobal.lti.*`), and both are
 * accepted back; an answer counts only from the authorization URL's origin and with our
 * message id. Values are read back in the browser and sent to the tool, which compares
 * them: the page never decides alone.
 */

/** The key a login's browser secret is stored under (Canvas recommends `state-…`-like keys). */
export const storageKey = (state: string) => `eoa-state-${state}`;

/**
 * The page script: reads its settings from the `#lti-storage` JSON block
 * `{ target, origin, subject, key, value?, timeoutMs }`, posts the request, and calls
 * `done(answer)` (the `value` for get_data, true for put_data) or `done(undefined)` on an
 * error answer or after `timeoutMs`. `then` is the page's own continuation, given as the
 * body of a function of `answer`.
 */
export function storageScript(then: string): string {
  return `(function(){
var cfg=JSON.parse(document.getElementById("lti-storage").textContent);
var win=cfg.target==="_parent"?window.parent:window.parent.frames[cfg.target];
var id="m"+Math.random().toString(36).slice(2)+Date.now().toString(36);
var finished=false;
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
