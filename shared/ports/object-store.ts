export interface StoredObject {
  body: Buffer;
  contentType: string;
}

/** Large message content and BIMI logos (later inbound mail and uploads): S3 in AWS, files under DATA_DIR locally. */
export interface ObjectStore {
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /** Undefined when no object has this key. */
  get(key: string): Promise<StoredObject | undefined>;
  delete(key: string): Promise<void>;
}
