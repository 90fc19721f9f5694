// Placeholder: the screen is being built (issue 27).
export default function Payments() {
  return <h1>Payments</h1>;
}
