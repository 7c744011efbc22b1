// The entry of the local runtime's functions thread (functions-thread.ts starts it). Plain
// JavaScript: the TypeScript loader of the main thread (tsx, or vitest's) does not reach worker
// threads, so this one registers tsx's for itself before it loads the thread's body.
import { register } from 'tsx/esm/api';

register();
await import('./functions-worker.ts');
