// undici ships types for its index only; these are the modules of it that the client loads directly.
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import type { EnvHttpProxyAgent } from 'undici';
  const EnvHttpProxyAgentClass: typeof EnvHttpProxyAgent;
  export default EnvHttpProxyAgentClass;
}
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  const request: Dispatcher['request'];
  export default request;
}
declare module 'undici/lib/api/api-connect.js' {
  import type { Dispatcher } from 'undici';
  const connect: Dispatcher['connect'];
  export default connect;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import type { Dispatcher } from 'undici';
  const DispatcherClass: typeof Dispatcher;
  export default DispatcherClass;
}
