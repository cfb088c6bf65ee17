/* global URLSearchParams */
/**
 * Carries `returnTo` from the address into the form (the server checks that it is a path
 * on this site before it redirects there) and shows why we are here.
 */
const params = new URLSearchParams(window.location.search);
const returnTo = params.get("returnTo");
if (returnTo) {
  document.getElementById("returnTo").value = returnTo;
  if (returnTo.includes("/launch/")) document.getElementById("login-reason").hidden = false;
}
if (params.get("error")) {
  document.getElementById("login-error").textContent = "Wrong username or password.";
}
