export default function View() {
  return <h1>overview</h1>;
}
