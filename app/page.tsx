export default function Home() {
  return <main>defguard console</main>;
}
