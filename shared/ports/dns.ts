export interface Dns {
  /** True when the domain publishes an MX, A or AAAA record. */
  acceptsMail(domain: string): Promise<boolean>;
}
