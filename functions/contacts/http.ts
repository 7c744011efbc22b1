// Contacts and contact lists (static and dynamic) with their memberships.
import { contactQuery, addMemberBody, createContactBody, createListBody, updateContactBody, updateListBody } from '../../shared/audiences/contacts/schemas';
import { createContact, deleteContact, listContacts, readContact, updateContact } from '../../shared/audiences/contacts/contacts';
import { addToList, createList, deleteList, listLists, listMembers, readList, removeFromList, updateList } from '../../shared/audiences/contacts/lists';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { listed, listing, pageOf } from '../../shared/http/lists';
import { json, noContent } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { functionNamed } from '../manifest';
import { contacts } from './definition';

export const handler = createHttpHandler(contacts, {
  'POST /v1/contacts': async (req, c) => json(201, await createContact(c, authOf(req).accountId, parseInput(createContactBody, req.body))),
  'GET /v1/contacts': async (req, c) => {
    const { email, list_id, q } = parseInput(contactQuery, req.query, 'query');
    return listed('contacts', await listContacts(listing(c), authOf(req).accountId, { email, list_id, q }, pageOf(req)));
  },
  'GET /v1/contacts/{id}': async (req, c) => json(200, await readContact(c.store, authOf(req).accountId, req.params.id ?? '')),
  'PATCH /v1/contacts/{id}': async (req, c) => json(200, await updateContact(c, authOf(req).accountId, req.params.id ?? '', parseInput(updateContactBody, req.body))),
  'DELETE /v1/contacts/{id}': async (req, c) => {
    await deleteContact(c, authOf(req).accountId, req.params.id ?? '');
    return noContent();
  },
  'POST /v1/lists': async (req, c) => json(201, await createList(c, authOf(req).accountId, parseInput(createListBody, req.body))),
  'GET /v1/lists': async (req, c) => listed('lists', await listLists({ ...c, ...listing(c) }, authOf(req).accountId, pageOf(req))),
  'GET /v1/lists/{id}': async (req, c) => json(200, await readList(c, authOf(req).accountId, req.params.id ?? '')),
  'PATCH /v1/lists/{id}': async (req, c) => json(200, await updateList(c, authOf(req).accountId, req.params.id ?? '', parseInput(updateListBody, req.body))),
  'DELETE /v1/lists/{id}': async (req, c) => {
    await deleteList(c, authOf(req).accountId, req.params.id ?? '');
    return noContent();
  },
  'POST /v1/lists/{id}/members': async (req, c) => json(201, await addToList(c, authOf(req).accountId, req.params.id ?? '', parseInput(addMemberBody, req.body))),
  'GET /v1/lists/{id}/members': async (req, c) => listed('contacts', await listMembers(listing(c), authOf(req).accountId, req.params.id ?? '', pageOf(req))),
  'DELETE /v1/lists/{id}/members/{contact_id}': async (req, c) => {
    await removeFromList(c, authOf(req).accountId, req.params.id ?? '', req.params.contact_id ?? '');
    return noContent();
  },
});
