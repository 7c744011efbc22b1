// A consumer module for the functions thread's failure test: its handler does nothing, and a
// moment after it is loaded it throws outside any handler, as a bug in a timer callback would.
setTimeout(() => {
  throw new Error('a consumer failed outside its handler');
}, 200);

export async function handler(): Promise<void> {}
