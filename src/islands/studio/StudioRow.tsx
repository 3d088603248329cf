import { Fragment, useState, type ReactNode } from 'react';
import type { SaveResult } from '../../lib/stores/studio.js';
import ItemEditor, { VISIBILITY_OPTIONS, type EditField } from './ItemEditor.tsx';

/** The parts of a row of the studio's tables of own items (videos, galleries, products, posts). */

/** Deletes the item once the performer confirms. */
export function DeleteButton({ confirm, onDelete }: { confirm: string; onDelete: () => Promise<unknown> }) {
  return (
    <button type="button" className="btn btn--link" onClick={async () => {
      if (!window.confirm(confirm)) return;
      await onDelete();
    }}>Delete</button>
  );
}

/** Opens the item's inline editor, or closes it when it is open. */
export function EditButton({ onClick, testId }: { onClick: () => void; testId: string }) {
  return <button type="button" className="btn btn--link" onClick={onClick} data-testid={testId}>Edit</button>;
}

/** The last cell of an item's row: Delete (confirmed) and Edit. */
export function ActionsCell({ confirm, onDelete, onEdit, editTestId }: { confirm: string; onDelete: () => Promise<unknown>; onEdit: () => void; editTestId: string }) {
  return (
    <td>
      <DeleteButton confirm={confirm} onDelete={onDelete} />{' '}
      <EditButton onClick={onEdit} testId={editTestId} />
    </td>
  );
}

export interface EditorRowProps<T> {
  /** Prefix of the editor's input ids (unique per item). */
  id: string;
  colSpan: number;
  fields: EditField[];
  save: (changes: Record<string, unknown>) => Promise<SaveResult<T>>;
  onClose: () => void;
  testId?: string;
  /** Shown under the editor (a post's pictures and video). */
  children?: ReactNode;
}

/** The table row under an item holding its inline editor, across the whole table. */
export function EditorRow<T>({ id, colSpan, fields, save, onClose, testId, children }: EditorRowProps<T>) {
  return (
    <tr data-testid={testId}>
      <td colSpan={colSpan}>
        <ItemEditor id={id} fields={fields} save={save} onClose={onClose} />
        {children}
      </td>
    </tr>
  );
}

/** Who may see an item and, for a sale, its price: the editor shows the price only while the item is for sale. */
export function accessFields(label: string, visibility: string, price: number, currencySymbol: string): EditField[] {
  return [
    { name: 'visibility', label, kind: 'select', value: visibility, options: VISIBILITY_OPTIONS },
    { name: 'price', label: `Sale price (${currencySymbol})`, kind: 'money', value: price, showIf: (f) => f.visibility === 'sale' },
  ];
}

export interface ItemTableProps<T extends { _id: string }> {
  testId: string;
  /** The column headings (the actions column's is empty); the editor spans them all. */
  head: string[];
  items: T[];
  /** An item's row; `edit` opens its editor, or closes it when it is open. */
  row: (item: T, edit: () => void) => ReactNode;
  /** The item's inline editor: what EditorRow needs but its span and closing, which the table gives. */
  editor: (item: T) => Omit<EditorRowProps<unknown>, 'colSpan' | 'onClose'>;
}

/** A studio table of one's own items: a row each and, under the one being edited (one at a time), its inline editor. */
export function ItemTable<T extends { _id: string }>({ testId, head, items, row, editor }: ItemTableProps<T>) {
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <table className="studio-table" data-testid={testId}>
      <thead><tr>{head.map((h, i) => <th key={i}>{h}</th>)}</tr></thead>
      <tbody>
        {items.map((item) => (
          <Fragment key={item._id}>
            {row(item, () => setEditing(editing === item._id ? null : item._id))}
            {editing === item._id ? <EditorRow {...editor(item)} colSpan={head.length} onClose={() => setEditing(null)} /> : null}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}
