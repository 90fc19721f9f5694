// Placeholder: the screen is being built (issue 27).
export default function Privacy() {
  return <h1>Privacy</h1>;
}
