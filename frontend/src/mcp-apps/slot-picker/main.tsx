import { createRoot } from 'react-dom/client';
import { connectToHost, type HostState } from './host-bridge.js';
import { SlotPicker } from './SlotPicker.js';
import './styles.css';

// One picker per document: each change the host sends draws it again with what is known now.
const root = createRoot(document.getElementById('root')!);
let host: HostState = { input: {} };
const app = connectToHost((change) => {
  host = { ...host, ...change };
  draw();
});
const draw = () => root.render(<SlotPicker app={app} host={host} />);
draw();
