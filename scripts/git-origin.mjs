// The local git origin for `npm start`: `git http-backend` behind a small loopback HTTP host.
// (Filled in by the Git-over-HTTPS gateway work.)
export async function startGitOrigin(_dir) {
  return "";
}
