// stream-json ships no types; this is the one entry point agora uses.
declare module 'stream-json/streamers/StreamArray.js' {
  import type { Duplex } from 'node:stream';
  const StreamArray: { withParser(): Duplex };
  export default StreamArray;
}
