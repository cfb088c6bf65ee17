/**
 * The one `seedExam`: course → class → assessment, created through the router's
 * instructor API as the instructor, so the router's store knows the exam. Each host app
 * passes its own way of posting as the instructor (a supertest agent, a header).
 */
export interface ExamIds {
  courseId: string;
  classId: string;
  examId: string;
}

/** POSTs `body` to `path` as the instructor and returns the parsed JSON answer (after checking it is a 201). */
export type PostAsInstructor = (path: string, body: unknown) => Promise<{ data: { _id: string } }>;

export async function seedExam(post: PostAsInstructor): Promise<ExamIds> {
  const course = await post("/oral/courses", { name: "Biology 101" });
  const courseId = course.data._id;
  const cls = await post(`/oral/courses/${courseId}/classes`, { name: "Autumn", startDate: "2026-09-01", endDate: "2026-12-20" });
  const classId = cls.data._id;
  const exam = await post("/oral/oral-assessments", { name: "Cells", classId, questions: [{ text: "What is a cell?" }] });
  return { courseId, classId, examId: exam.data._id };
}
