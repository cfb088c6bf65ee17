/**
 * Goes on to where the login was asked for (the server put a checked, same-site path in
 * the link). `replace`, so Back does not return to this page.
 */
window.location.replace(document.getElementById("continue").href);
