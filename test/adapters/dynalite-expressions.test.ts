// dynalite with its expression parses kept as templates (local/dynalite-expressions.mjs), as the
// runtime runs it: the same expression with other values, names or value types answers exactly as a
// fresh parse would, and is parsed once.
import { ConditionalCheckFailedException, PutItemCommand, QueryCommand, UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseExpressionsOnce } from '../../local/dynalite-expressions.mjs';
import { startDynaliteTable, type DynaliteTable } from '../support/dynalite-table';

const require = createRequire(import.meta.url);
const fromDynalite = createRequire(require.resolve('dynalite'));

/** Parses the parsers really made, counted beneath the templates. */
let parses = 0;

let table: DynaliteTable | undefined;
let client: DynamoDBClient;

beforeAll(async () => {
  for (const kind of ['conditionParser', 'updateParser', 'projectionParser']) {
    const parser = fromDynalite(`./db/${kind}`) as { parse: (input: string, options: unknown) => unknown };
    const parse = parser.parse;
    parser.parse = (input, options) => {
      parses += 1;
      return parse(input, options);
    };
  }
  parseExpressionsOnce();
  table = await startDynaliteTable();
  client = table.client;
});

afterAll(async () => {
  await table?.close();
});

const key = (pk: string, sk: string): Record<string, AttributeValue> => ({ pk: { S: pk }, sk: { S: sk } });

/** The rate limiter's shape: a SET shifting slots with if_not_exists, under a condition, answering the item after. */
const shift = (now: number, cutoff: number) =>
  new UpdateItemCommand({
    TableName: 'tbl',
    Key: key('log', 'a'),
    UpdateExpression: 'SET #t0 = if_not_exists(#t1, :zero), #t1 = :now, #e = :entity',
    ConditionExpression: 'attribute_not_exists(#t0) OR #t0 <= :cutoff',
    ExpressionAttributeNames: { '#t0': 't0', '#t1': 't1', '#e': 'entity' },
    ExpressionAttributeValues: { ':zero': { N: '0' }, ':now': { N: String(now) }, ':cutoff': { N: String(cutoff) }, ':entity': { S: 'rate_log' } },
    ReturnValues: 'ALL_NEW',
  });

it('answers a repeated conditional update with each request\'s own values, parsing its expressions once', async () => {
  // Arrange
  const before = parses;

  // Act
  const first = await client.send(shift(100, 0));
  const second = await client.send(shift(200, 0));
  const refused = client.send(shift(300, 50)); // t0 is 100 now: not at or before 50
  await expect(refused).rejects.toBeInstanceOf(ConditionalCheckFailedException);
  const third = await client.send(shift(400, 150));

  // Assert
  expect(first.Attributes).toMatchObject({ t0: { N: '0' }, t1: { N: '100' }, entity: { S: 'rate_log' } });
  expect(second.Attributes).toMatchObject({ t0: { N: '100' }, t1: { N: '200' } });
  expect(third.Attributes).toMatchObject({ t0: { N: '200' }, t1: { N: '400' } });
  expect(parses - before).toBe(2); // the update and the condition, once each for four requests
});

it('answers a repeated query with key condition and filter with each request\'s own values', async () => {
  // Arrange
  for (const [sk, n] of [['a1', 1], ['a2', 2], ['b1', 3]] as const) await client.send(new PutItemCommand({ TableName: 'tbl', Item: { ...key('q', sk), n: { N: String(n) } } }));
  const query = (prefix: string, min: number) =>
    client.send(
      new QueryCommand({
        TableName: 'tbl',
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: 'n >= :min',
        ExpressionAttributeValues: { ':pk': { S: 'q' }, ':prefix': { S: prefix }, ':min': { N: String(min) } },
      }),
    );
  const before = parses;

  // Act
  const a = await query('a', 0);
  const a2 = await query('a', 2);
  const b = await query('b', 0);

  // Assert
  expect(a.Items?.map((i) => i.sk?.S)).toEqual(['a1', 'a2']);
  expect(a2.Items?.map((i) => i.sk?.S)).toEqual(['a2']);
  expect(b.Items?.map((i) => i.sk?.S)).toEqual(['b1']);
  expect(parses - before).toBe(2);
});

it('refuses as a fresh parse would: an unused value, another value type, a syntax error, BETWEEN bounds reversed', async () => {
  // Arrange: each expression kept once by a request that parses it
  const add = (value: AttributeValue, extra: Record<string, AttributeValue> = {}) =>
    client.send(new UpdateItemCommand({ TableName: 'tbl', Key: key('n', 'a'), UpdateExpression: 'ADD #n :v', ExpressionAttributeNames: { '#n': 'n' }, ExpressionAttributeValues: { ':v': value, ...extra } }));
  const between = (low: string, high: string) =>
    client.send(new QueryCommand({ TableName: 'tbl', KeyConditionExpression: 'pk = :pk AND sk BETWEEN :low AND :high', ExpressionAttributeValues: { ':pk': { S: 'q' }, ':low': { S: low }, ':high': { S: high } } }));
  await add({ N: '1' });
  await between('a', 'b');

  // Act and assert
  await expect(add({ N: '2' }, { ':unused': { N: '3' } })).rejects.toThrow(/ExpressionAttributeValues unused in expressions: keys: \{:unused\}/);
  await expect(add({ S: 'x' })).rejects.toThrow(/Incorrect operand type for operator or function; operator: ADD, operand type: STRING/);
  await expect(client.send(new UpdateItemCommand({ TableName: 'tbl', Key: key('n', 'a'), UpdateExpression: 'ADD #n :v :w', ExpressionAttributeNames: { '#n': 'n' }, ExpressionAttributeValues: { ':v': { N: '1' }, ':w': { N: '1' } } }))).rejects.toThrow(/Syntax error/);
  await expect(between('b', 'a')).rejects.toThrow(/BETWEEN operator requires upper bound to be greater than or equal to lower bound/);
  expect((await add({ N: '5' })).$metadata.httpStatusCode).toBe(200);
});
