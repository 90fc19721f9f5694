// Placeholder: the screen is being built (issue 27).
export default function Profile() {
  return <h1>Profile</h1>;
}
