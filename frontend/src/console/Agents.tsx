// Placeholder: the screen is being built (issue 27).
export default function Agents() {
  return <h1>Agents</h1>;
}
