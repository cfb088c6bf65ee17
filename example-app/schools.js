/**
 * The demo's schools. Each is its own organization on the platform, with its own API key,
 * exam host and records; every demo user belongs to one (`school` in users.js). A real
 * product keeps this in its own tenants table, with each school's key in a secret store.
 */
export const SCHOOLS = [
  { id: "north", name: "North High" },
  { id: "south", name: "South College" },
];
