/**
 * One live snapshot per exam per period, whoever watches. However many streams follow an
 * exam (the example app's *Exam day* panel opens one per open dashboard), its snapshot is
 * computed once every `everyMs`, serialised once, and written to every stream; a new
 * stream gets the latest one at once. The exam's feed stops when its last stream goes.
 *
 * A stream whose client does not read is skipped (not buffered): past `MAX_UNREAD_BYTES`
 * waiting in its socket's buffer it gets no new snapshot until it has read, since only
 * the latest one matters.
 */

/** Bytes a stream may have waiting unread before snapshots skip it. */
export const MAX_UNREAD_BYTES = 64 * 1024;

export interface LiveStream {
  /** Bytes written and not yet taken by the socket (`res.writableLength`). */
  readonly unread: number;
  write(event: string): void;
  /** The router is closing: end the stream. */
  end(): void;
}

interface Feed {
  streams: Set<LiveStream>;
  /** The last event sent, for a stream that joins. */
  last: string | undefined;
  timer: NodeJS.Timeout | undefined;
  running: boolean;
}

export class LiveFeeds {
  private readonly feeds = new Map<string, Feed>();
  private closed = false;

  /** `event` computes one exam's event text once (`event: snapshot\ndata: …\n\n`); it never rejects. */
  constructor(private readonly event: (examId: string) => Promise<string>, private readonly everyMs: number) {}

  /** Streams open now, every exam. */
  get streams(): number {
    let n = 0;
    for (const feed of this.feeds.values()) n += feed.streams.size;
    return n;
  }

  /** Adds a stream to the exam's feed; the returned function removes it. */
  follow(examId: string, stream: LiveStream): () => void {
    if (this.closed) {
      stream.end();
      return () => undefined;
    }
    let feed = this.feeds.get(examId);
    if (!feed) {
      feed = { streams: new Set(), last: undefined, timer: undefined, running: false };
      this.feeds.set(examId, feed);
      void this.tick(examId, feed);
    } else if (feed.last !== undefined) stream.write(feed.last);
    feed.streams.add(stream);
    const joined = feed;
    return () => {
      joined.streams.delete(stream);
      if (joined.streams.size === 0 && this.feeds.get(examId) === joined) {
        clearTimeout(joined.timer);
        this.feeds.delete(examId);
      }
    };
  }

  /** Ends every stream (the router is closing). */
  close(): void {
    this.closed = true;
    for (const feed of this.feeds.values()) {
      clearTimeout(feed.timer);
      for (const stream of feed.streams) stream.end();
    }
    this.feeds.clear();
  }

  private async tick(examId: string, feed: Feed): Promise<void> {
    feed.running = true;
    const event = await this.event(examId);
    feed.running = false;
    if (this.feeds.get(examId) !== feed) return;
    feed.last = event;
    for (const stream of feed.streams) if (stream.unread <= MAX_UNREAD_BYTES) stream.write(event);
    feed.timer = setTimeout(() => void this.tick(examId, feed), this.everyMs);
  }
}
