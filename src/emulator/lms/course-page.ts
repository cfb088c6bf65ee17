/**
 * The LMS emulator's pages. The course page frames the tool as Canvas does (a link placed
 * for a window is a link opening the launch in a new window instead): the tool runs
 * in an iframe whose first document auto-posts the login to the tool, next to a hidden
 * frame named `post_message_forwarding` that answers Platform Storage messages
 * (`lti.put_data`, `lti.get_data`, and the `org.imsglobal.lti.*` spellings) for origins
 * it has seen, checking that each request comes from the tool's origin.
 */
import { escapeHtml, scriptJson } from "../../core/html.js";

export function autoPostPage(action: string, fields: Record<string, string>, title = "Launching…"): string {
  const inputs = Object.entries(fields).map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`).join("");
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>
<form id="f" method="post" action="${escapeHtml(action)}">${inputs}<noscript><button>Continue</button></noscript></form>
<script>document.getElementById("f").submit();</script></body></html>`;
}

export function coursePage(title: string, launchSrc: string, toolOrigin: string, inWindow = false): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font:16px system-ui;margin:1rem}iframe.tool{width:100%;height:420px;border:1px solid #999}</style></head><body>
<h1>${escapeHtml(title)}</h1>
${inWindow ? `<p><a id="launch" href="${escapeHtml(launchSrc)}" target="_blank">${escapeHtml(title)}</a> (opens in a new window)</p>` : `<iframe class="tool" name="tool_content" title="Tool" src="${escapeHtml(launchSrc)}" allow="microphone"></iframe>`}
<iframe name="post_message_forwarding" src="/post_message_forwarding?tool=${encodeURIComponent(toolOrigin)}" hidden></iframe>
</body></html>`;
}

/** Platform Storage, answered from the LMS's own frame; values live as long as the course page. A put without a value removes the key (as Canvas and Brightspace do). */
export function forwardingPage(toolOrigin: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"></head><body><script>
var store={};var tool=${scriptJson(toolOrigin)};
window.addEventListener("message",function(e){
if(e.origin!==tool||!e.data||typeof e.data.subject!=="string")return;
var s=e.data.subject.replace(/^org\\.imsglobal\\./,""),legacy=e.data.subject!==s;
var reply={message_id:e.data.message_id,key:e.data.key};
if(s==="lti.put_data"){if(e.data.value)store[e.data.key]=e.data.value;else delete store[e.data.key];reply.value=e.data.value;}
else if(s==="lti.get_data"){if(e.data.key in store)reply.value=store[e.data.key];else reply.error={code:"bad_request",message:"no such key"};}
else if(s==="lti.capabilities"){reply.supported_messages=[{subject:"lti.put_data"},{subject:"lti.get_data"}];}
else return;
if(legacy)return; // one answer per request: the tool sends both spellings
reply.subject=s+".response";
e.source.postMessage(reply,e.origin);
});
</script></body></html>`;
}

/**
 * The course's home as one user sees it: the placed links (each opens its course page),
 * *Add an oral exam* for an instructor, and links to view the course as each other user
 * (the emulator has no sign-in: `?user=` names who is looking).
 */
export function courseHomePage(input: {
  user: { id: string; name: string; role: string };
  users: readonly { id: string; name: string; role: string }[];
  links: readonly { id: string; title: string; href: string }[];
  addExamHref: string | undefined;
  /** The course's gradebook, shown to instructors (undefined: not shown). */
  gradebookHref?: string | undefined;
  homeHref: (userId: string) => string;
}): string {
  const { user, users, links, addExamHref, gradebookHref, homeHref } = input;
  const items = links.length === 0
    ? "<li>Nothing placed yet.</li>"
    : links.map((l) => `<li><a class="link" id="${escapeHtml(l.id)}" href="${escapeHtml(l.href)}">${escapeHtml(l.title)}</a></li>`).join("");
  const others = users.filter((u) => u.id !== user.id).map((u) => `<a href="${escapeHtml(homeHref(u.id))}">${escapeHtml(u.name)} (${escapeHtml(u.role)})</a>`).join(" · ");
  return `<!doctype html><html><head><meta charset="utf-8"><title>Course</title>
<style>body{font:16px system-ui;margin:1rem}</style></head><body>
<h1>Course</h1>
<p id="who">Viewing as ${escapeHtml(user.name)} (${escapeHtml(user.role)}). View as: ${others}</p>
${addExamHref ? `<p><a id="add-exam" href="${escapeHtml(addExamHref)}">Add an oral exam</a></p>` : ""}
${gradebookHref ? `<p><a id="gradebook" href="${escapeHtml(gradebookHref)}">Gradebook</a></p>` : ""}
<h2>Course content</h2>
<ul id="content">${items}</ul>
</body></html>`;
}
