// The rule for the initial administrator's password, shared by `npm start` and the Worker
// (src/crypto/password.ts holds the same rule for every password).
const COMMON = new Set(["password", "12345678", "123456789", "1234567890", "qwertyuiop", "password1", "iloveyou", "abcdefgh", "11111111", "00000000"]);

export function passwordProblem(password) {
  if (password.length < 8) return "it is too short (minimum is 8 characters)";
  if (password.length > 128) return "it is too long (maximum is 128 characters)";
  if (COMMON.has(password.toLowerCase())) return "it is a commonly used password";
  return null;
}
