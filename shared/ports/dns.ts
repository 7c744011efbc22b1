export type RecordType = 'MX' | 'A' | 'AAAA' | 'CNAME' | 'TXT' | 'NS';

export interface Dns {
  /** True when the domain publishes an MX, A or AAAA record. */
  acceptsMail(domain: string): Promise<boolean>;
  /**
   * The records of one type at a name: MX as "priority exchange", TXT with its strings joined.
   * [] when the name or the type does not exist; RetryableError when no answer came.
   */
  lookup(name: string, type: RecordType): Promise<string[]>;
}
