export default function View() {
  return <h1>sessions</h1>;
}
