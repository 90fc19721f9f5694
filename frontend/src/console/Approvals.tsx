// Placeholder: the screen is being built (issue 27).
export default function Approvals() {
  return <h1>Approvals</h1>;
}
