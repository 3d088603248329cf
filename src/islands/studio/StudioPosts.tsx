import { useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import type { StudioPost } from '../../lib/api.js';
import { createPostStudio } from '../../lib/stores/studio.js';
import ItemEditor from './ItemEditor.tsx';

/** Performer studio: write posts (plain text; blank lines separate paragraphs); calls go through its store. */
export default function StudioPosts({ initial }: { initial: { items: StudioPost[]; total: number } }) {
  const [studio] = useState(() => createPostStudio(initial));
  const { items: posts, creating: saving } = useStore(studio.store);
  const [editing, setEditing] = useState<string | null>(null);
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const el = event.currentTarget;
    const data = new FormData(el);
    const post = await studio.create({
      title: String(data.get('title') ?? ''),
      excerpt: String(data.get('excerpt') ?? ''),
      content: String(data.get('content') ?? ''),
      status: String(data.get('status') ?? 'published'),
    });
    if (post) el.reset();
  };
  return (
    <div>
      <form className="form studio-panel" onSubmit={onSubmit} data-testid="post-form">
        <h2>New post</h2>
        <div className="form__field"><label htmlFor="po-title">Title</label><input id="po-title" name="title" required maxLength={200} /></div>
        <div className="form__field"><label htmlFor="po-excerpt">Excerpt</label><input id="po-excerpt" name="excerpt" maxLength={500} /></div>
        <div className="form__field"><label htmlFor="po-content">Text</label><textarea id="po-content" name="content" rows={8} required /></div>
        <div className="form__field">
          <label htmlFor="po-status">Status</label>
          <select id="po-status" name="status" defaultValue="published"><option value="published">Published</option><option value="draft">Draft</option><option value="hidden">Hidden</option></select>
        </div>
        <div className="form__actions"><button className="btn btn--primary" type="submit" disabled={saving}>Save post</button></div>
      </form>
      <table className="studio-table" data-testid="studio-posts">
        <thead><tr><th>Title</th><th>Status</th><th>Date</th><th></th></tr></thead>
        <tbody>
          {posts.map((p) => [
            <tr key={p._id} data-testid="studio-post" data-id={p._id}>
              <td><a href={`/posts/${p._id}`}>{p.title}</a></td><td>{p.status}</td><td>{(p.publishedAt ?? p.createdAt).slice(0, 10)}</td>
              <td><button type="button" className="btn btn--link" onClick={async () => {
                if (!window.confirm('Delete this post?')) return;
                await studio.remove(p._id);
              }}>Delete</button>{' '}
              <button type="button" className="btn btn--link" onClick={() => setEditing(editing === p._id ? null : p._id)} data-testid="post-edit">Edit</button></td>
            </tr>,
            editing === p._id ? (
              <tr key={`${p._id}-edit`}>
                <td colSpan={4}>
                  <ItemEditor
                    id={`pe-${p._id}`}
                    fields={[
                      { name: 'title', label: 'Title', kind: 'text', value: p.title },
                      { name: 'excerpt', label: 'Excerpt', kind: 'textarea', value: p.excerpt },
                      { name: 'content', label: 'New text (leave empty to keep the current text)', kind: 'textarea', value: '', hint: 'Plain text; a blank line starts a paragraph.' },
                      { name: 'status', label: 'Status', kind: 'select', value: p.status, options: [['draft', 'Draft'], ['published', 'Published'], ['hidden', 'Hidden']] },
                      { name: 'publishedAt', label: 'Publish date', kind: 'datetime', value: p.publishedAt },
                    ]}
                    save={(changes) => studio.update(p._id, changes)}
                    onClose={() => setEditing(null)}
                  />
                </td>
              </tr>
            ) : null,
          ])}
        </tbody>
      </table>
    </div>
  );
}
