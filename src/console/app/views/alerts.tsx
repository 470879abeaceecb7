export default function View() {
  return <h1>alerts</h1>;
}
