import type { ReactNode } from 'react';
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
