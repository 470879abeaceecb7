export default function View() {
  return <h1>markets</h1>;
}
