/**
 * The student's page: their exams (from the example app's /app/my-exams, which reads the
 * plugin's store and the app's roster), each with a Launch link to the plugin's launch
 * route. The launch route does the rest: token, redirect, or an explanation page.
 */
import { api, formatDuration, h, whoAmI } from "./common.js";

const list = document.getElementById("exams");
const error = document.getElementById("exams-error");

const me = await whoAmI();
if (me) {
  const exams = await api("GET", "/app/my-exams");
  if (!exams.ok) {
    list.replaceChildren();
    error.textContent = exams.problem.detail || exams.problem.title;
  } else if (exams.data.length === 0) {
    list.replaceChildren(h("li", { class: "muted" }, "You have no exams yet: you are not enrolled in a class with an oral assessment."));
  } else {
    list.replaceChildren(...exams.data.map((exam) => h("li", { class: "exam", "data-exam-id": exam.examId },
      h("div", {},
        h("strong", {}, exam.name), exam.kind === "roleplay" ? h("span", { class: "badge" }, "role-play") : null,
        h("div", { class: "muted" }, [exam.courseName, exam.className, formatDuration(exam.duration)].filter(Boolean).join(" · "))),
      h("a", { class: "button", href: exam.launchUrl }, "Launch"))));
  }
}
