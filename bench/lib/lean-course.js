/**
 * The least a router answering GET /courses/:id can do: one Express layer (no mount,
 * guards or id check) that gets the course with `fetchCourse(id)` (resolving to
 * `{ data }`) and answers `{ data }` as JSON. With our transport, the JSON parse and the
 * record schema it is the axios floor (overhead.js); with the client's `courses.retrieve`
 * it adds the client's call (breakdown.js).
 */
import express from "express";
import { listenLocal } from "./listen.js";

export async function startLeanCourseServer(fetchCourse) {
  const app = express();
  app.use((req, res, next) => {
    const match = req.method === "GET" ? /^\/courses\/([^/]+)\/?$/i.exec(req.path) : null;
    if (!match) return next();
    fetchCourse(match[1]).then((found) => {
      const text = JSON.stringify({ data: found.data });
      res.statusCode = 200;
      res.setHeader("Content-Type", "application/json; charset=utf-8");
      res.setHeader("Content-Length", Buffer.byteLength(text));
      res.end(text);
    }, next);
  });
  return listenLocal(app);
}
