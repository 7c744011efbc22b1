// A message's content item is read eventually consistent (it never changes once written), and
// asked again consistently when that read does not see it yet (written a moment ago).
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../shared/db/store';
import { MessageRepository } from '../../shared/sending/messages/repository';
import { useTestbed } from '../support/testbed';

const bed = useTestbed();

/** The store, its gets recorded as their consistency; `stale` makes an eventually consistent get see nothing. */
function watched(stale: boolean): { store: Store; gets: boolean[] } {
  const gets: boolean[] = [];
  const raw = bed.c.store;
  const store = new Proxy(raw, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== 'get') return typeof value === 'function' ? value.bind(target) : value;
      return async (key: unknown, consistent = true) => {
        gets.push(consistent);
        return stale && !consistent ? undefined : raw.get(key as never, consistent);
      };
    },
  });
  return { store, gets };
}

/** A content item of the message, as acceptance stores one: its gzipped bytes. */
async function storedContent(messageId: string, html: string): Promise<Buffer> {
  const content = gzipSync(JSON.stringify({ from: 'a@acme.test', subject: 'hi', body_html: html }));
  await new MessageRepository(bed.c.store).putContents([{ id: messageId, contentGz: content }]);
  return content;
}

describe('a message content item read', () => {
  it('is one eventually consistent read when the item is there', async () => {
    const content = await storedContent('msg_content_read_1', '<p>x</p>');
    const { store, gets } = watched(false);

    const item = await new MessageRepository(store).getContent('msg_content_read_1');

    expect(Buffer.from(item!.content_gz)).toEqual(content);
    expect(gets).toEqual([false]);
  });

  it('asks again consistently when the eventually consistent read does not see it yet', async () => {
    const content = await storedContent('msg_content_read_2', '<p>y</p>');
    const { store, gets } = watched(true);

    const item = await new MessageRepository(store).getContent('msg_content_read_2');

    expect(Buffer.from(item!.content_gz)).toEqual(content);
    expect(gets).toEqual([false, true]);
  });

  it('answers nothing, after both reads, for content that is not stored', async () => {
    const { store, gets } = watched(false);

    expect(await new MessageRepository(store).getContent('msg_content_read_absent')).toBeUndefined();
    expect(gets).toEqual([false, true]);
  });
});
