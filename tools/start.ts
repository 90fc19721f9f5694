import { loadConfigOrExit } from '../src/config.js';
import { serve } from '../src/server.js';
import { startDevelopmentProviders } from './emulators/development.js';

// `npm start`: in development, every provider without settings (payments, both
// calendar providers, mail) runs as its bundled emulator on loopback; with settings, or
// in production, this is exactly src/main.ts.
const development = await startDevelopmentProviders(loadConfigOrExit());
await serve(development.config, development.emulators);
