import { describe, expect, it } from 'vitest';
import { StatementNames } from '../../server/db/pg-statement-names.js';

describe('StatementNames', () => {
  const read = 'select "id" from "users" where "id" = $1';

  it('names a text on its second run and keeps that name', () => {
    const names = new StatementNames(10);
    expect(names.nameOf(read)).toBeUndefined();
    const name = names.nameOf(read);
    expect(name).toMatch(/^s\d+$/);
    expect(names.nameOf(read)).toBe(name);
    expect(names.size).toBe(1);
  });

  it('gives each text a name of its own', () => {
    const names = new StatementNames(10);
    const other = 'update "users" set "name" = $1 where "id" = $2';
    for (const text of [read, other, read, other]) names.nameOf(text);
    expect(names.nameOf(read)).not.toBe(names.nameOf(other));
  });

  it('never names transaction control or other statements, however often they run', () => {
    const names = new StatementNames(10);
    for (const text of ['begin', 'commit', 'rollback', 'savepoint "a"', 'create table "x" ("id" text)', 'LISTEN session_changed']) {
      for (let i = 0; i < 3; i++) expect(names.nameOf(text)).toBeUndefined();
    }
    for (const text of ['  SELECT 1', 'with "a" as (select 1) select * from "a"', 'insert into "x" values ($1)', 'delete from "x"']) {
      names.nameOf(text);
      expect(names.nameOf(text)).toBeDefined();
    }
  });

  it('names at most `max` texts; the rest run as they are', () => {
    const names = new StatementNames(2);
    const texts = ['select 1', 'select 2', 'select 3'];
    for (const text of [...texts, ...texts]) names.nameOf(text);
    expect(names.size).toBe(2);
    expect(names.nameOf('select 3')).toBeUndefined();
    expect(names.nameOf('select 1')).toBeDefined();
  });
});
