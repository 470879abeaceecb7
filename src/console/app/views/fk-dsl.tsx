export default function View() {
  return <h1>fk-dsl</h1>;
}
