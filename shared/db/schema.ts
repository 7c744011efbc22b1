// The table's schema: its key attributes, TTL attribute and indexes (what the CDK table construct
// and the local table bootstrap create), the entities it holds, and the index attributes an item
// carries. How each entity's keys are formed is shared/db/keys.ts.
export const table = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes the item some time after it passes (dynalite never does). */
  ttlAttribute: 'expires_at',
  indexes: {
    /**
     * Sparse, keys only. Today it holds the outbox: messages accepted and not yet taken by the send
     * worker, by the end of their hand-off lease (keys.messageOutboxEntry), so a sweep finds what a
     * crash left (and idempotency claims of the design before, keys.outboxEntry).
     */
    byLookup: { name: 'by-lookup', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: [] as readonly string[] },
    /**
     * An account's messages, newest first by id. Only what never changes after acceptance is
     * projected (what the key condition and the channel and created_at filters read), so a status
     * change writes the table item alone: the list reads each page's statuses from the table.
     */
    byMessage: { name: 'by-message', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projection: ['channel', 'created_at'] as readonly string[] },
    /**
     * Filtered lists inside an account (suppressions), most recently changed first. Only what the
     * list shows and filters on is projected; `id`, `status` and `message_type` are left from when
     * messages were listed here too (changing a projection replaces the index in a deployed stack).
     */
    byFilter: {
      name: 'by-filter',
      partitionKey: 'gsi2pk',
      sortKey: 'gsi2sk',
      projection: ['entity', 'id', 'channel', 'status', 'message_type', 'created_at', 'recipient', 'state', 'reason', 'updated_at'] as readonly string[],
    },
  },
} as const;

export type Entity =
  | 'account'
  | 'account_email'
  | 'staff_audit'
  | 'api_key'
  | 'api_key_hash'
  | 'rate_log'
  | 'schedule'
  | 'schedule_ref'
  | 'message'
  | 'message_content'
  | 'message_event'
  | 'spend_returned'
  | 'idempotency'
  | 'suppression'
  | 'usage'
  | 'reputation_bucket'
  | 'reputation_board'
  | 'spend_cap'
  | 'domain'
  | 'domain_claim'
  | 'test_recipient'
  | 'one_time_token'
  | 'one_time_token_subject'
  | 'login_code'
  | 'user'
  | 'user_email'
  | 'session'
  | 'user_session'
  | 'oauth_identity'
  | 'test_send_counter'
  | 'webhook'
  | 'webhook_delivery'
  | 'broadcast'
  | 'broadcast_recipients'
  | 'broadcast_stat_shard'
  | 'broadcast_stat_marker'
  | 'broadcast_content'
  | 'template'
  | 'template_version'
  | 'snippet'
  | 'snippet_name'
  | 'contact'
  | 'contact_email'
  | 'contact_count'
  | 'contact_list'
  | 'list_member'
  | 'contact_import'
  | 'form'
  | 'form_ref'
  | 'inbound_route'
  | 'inbound_email'
  | 'inbound_content'
  | 'inbound_receipt'
  | 'mail_inbox'
  | 'mail_label'
  | 'mail_thread'
  | 'mail_thread_entry'
  | 'mail_message_ref'
  | 'mail_view_entry'
  | 'billing'
  | 'billing_customer'
  | 'billing_event'
  | 'mail_posting'
  | 'mail_doc';

export interface IndexKey {
  gsi2pk: string;
  gsi2sk: string;
}

/** The by-message index attributes: a message's entry in its account's list. */
export interface MessageListKey {
  gsi3pk: string;
  gsi3sk: string;
}

/** The by-lookup index attributes; the outbox is the only user (keys.outboxEntry). */
export interface OutboxKey {
  gsi1pk: string;
  gsi1sk: string;
}

/** The by-lookup index attributes on an account item: its entry in the list of every account. */
export interface AccountListKey {
  gsi1pk: string;
  gsi1sk: string;
}
