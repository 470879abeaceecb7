export default function View() {
  return <h1>access</h1>;
}
