import { loadConfigOrExit } from './config.js';
import { serve } from './server.js';

// The production entry: real providers only. `npm start` (tools/start.ts) adds the
// development emulators in front of the same `serve`.
await serve(loadConfigOrExit());
