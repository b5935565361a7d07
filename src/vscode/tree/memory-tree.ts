/**
 * The memory explorer's data provider: Pending / Active / Deleted groups, paged
 * record lists (200 per page, "Load more…"), sort and filter state. It only maps
 * core records to tree items and refreshes on core change events (debounced).
 */
import * as vscode from 'vscode';
import type { AgentMemoryApp } from '../../core/app/types';
import { errorMessage } from '../../core/errors';
import type { Logger } from '../../core/logger';
import { DEFAULT_PAGE_SIZE, ListQuery } from '../../core/memory/sqlite/record-query';
import { Language, RECORD_STATUSES, RecordStatus } from '../../core/memory/types';
import type { AppHost } from '../app-host';
import { debounce } from '../debounce';
import type { Settings } from '../settings-schema';
import { markStale, proposalItem, proposalsGroupItem } from './review-items';
import { emptyGroupHint, groupItem, hintItem, isMisaligned, loadMoreItem, MemoryNode, recordItem, RecordNode, recordTaskVerdict, recordTooltip } from './tree-items';

export type SortKey = 'utility' | 'retrievals' | 'recency';

export interface TreeFilter {
  text?: string;
  language?: Language;
  misalignedOnly?: boolean;
}

const STATUSES: readonly RecordStatus[] = RECORD_STATUSES;
/** How each sort reads in the view's message. */
export const SORT_TEXT: Record<SortKey, string> = {
  utility: 'utility (mean Φ, highest first)',
  retrievals: 'retrievals (most first)',
  recency: 'recency (newest first)',
};
const REFRESH_DELAY_MS = 150;

export class MemoryTreeProvider implements vscode.TreeDataProvider<MemoryNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<MemoryNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private sortKey: SortKey = 'recency';
  private filterState: TreeFilter = {};
  private nonEmpty = false;
  private readonly pages = new Map<RecordStatus, number>();
  private view: vscode.TreeView<MemoryNode> | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly scheduleRefresh = debounce(() => this.refresh(), REFRESH_DELAY_MS);

  constructor(
    private readonly host: AppHost,
    private readonly settings: () => Settings,
    private readonly logger: Logger,
  ) {
    this.disposables.push(host.onDidChange(() => this.scheduleRefresh()), this.changed);
  }

  /** Binds the TreeView so the provider can show the sort/filter in its description. */
  attach(view: vscode.TreeView<MemoryNode>): void {
    this.view = view;
    this.updateDescription();
  }

  get sort(): SortKey {
    return this.sortKey;
  }

  get filter(): Readonly<TreeFilter> {
    return this.filterState;
  }

  setSort(sort: SortKey): void {
    this.sortKey = sort;
    this.refresh(true);
  }

  setFilter(filter: TreeFilter): void {
    this.filterState = { ...filter, text: filter.text?.trim() || undefined };
    void vscode.commands.executeCommand('setContext', 'agentMemory.filtered', this.isFiltered);
    this.refresh(true);
  }

  get isFiltered(): boolean {
    return Boolean(this.filterState.text || this.filterState.language || this.filterState.misalignedOnly);
  }

  loadMore(status: RecordStatus): void {
    this.pages.set(status, (this.pages.get(status) ?? 1) + 1);
    this.changed.fire(undefined);
  }

  /** Re-reads everything; `resetPaging` goes back to the first page of each group. */
  refresh(resetPaging = false): void {
    if (resetPaging) this.pages.clear();
    this.updateDescription();
    this.changed.fire(undefined);
  }

  getTreeItem(node: MemoryNode): vscode.TreeItem {
    if (node.kind === 'record') return node.stale ? markStale(recordItem(node), this.host.current?.recordCheck(node.record.id), node.record.question) : recordItem(node);
    if (node.kind === 'proposal') return proposalItem(node);
    if (node.kind === 'proposals') return proposalsGroupItem(this.host.current ? this.proposals(this.host.current).length : 0);
    if (node.kind === 'loadMore') return loadMoreItem(node, DEFAULT_PAGE_SIZE);
    if (node.kind === 'hint') return hintItem(node);
    const app = this.host.current;
    const counts = app?.counts();
    const matching = this.isFiltered && app ? app.list({ ...this.query(node.status), limit: 1 }).total : undefined;
    return groupItem(node.status, counts?.[node.status] ?? 0, matching);
  }

  resolveTreeItem(item: vscode.TreeItem, node: MemoryNode): vscode.TreeItem {
    const app = this.host.current;
    if (node.kind === 'record' && app) {
      item.tooltip = recordTooltip(node, app);
      if (node.stale) markStale(item, app.recordCheck(node.record.id), node.record.question);
    }
    return item;
  }

  getParent(node: MemoryNode): MemoryNode | undefined {
    if (node.kind === 'proposal') return { kind: 'proposals' };
    if (node.kind === 'proposals') return undefined;
    return node.kind === 'group' ? undefined : { kind: 'group', status: node.kind === 'record' ? node.record.status : node.status };
  }

  async getChildren(node?: MemoryNode): Promise<MemoryNode[]> {
    let app: AgentMemoryApp;
    try {
      app = await this.host.get();
    } catch (error) {
      this.logger.error(`[tree] ${errorMessage(error)}`);
      if (this.view) this.view.message = `Cannot open the memory: ${errorMessage(error)}`;
      return [];
    }
    if (!node) {
      const counts = app.counts();
      const empty = counts.pending + counts.active + counts.deleted === 0;
      void vscode.commands.executeCommand('setContext', 'agentMemory.empty', empty);
      // The walkthrough shows "already seeded" instead of "seed" on a memory with records (the pre-seeded demo).
      void vscode.commands.executeCommand('setContext', 'agentMemory.hasRecords', !empty);
      this.nonEmpty = !empty;
      this.updateDescription();
      // An empty root lets the welcome view (viewsWelcome) show.
      const proposals: MemoryNode[] = !empty && this.proposals(app).length > 0 ? [{ kind: 'proposals' }] : [];
      return empty ? [] : [...proposals, ...STATUSES.map((status): MemoryNode => ({ kind: 'group', status }))];
    }
    if (node.kind === 'proposals') return this.proposals(app).map((proposal): MemoryNode => ({ kind: 'proposal', proposal }));
    if (node.kind !== 'group') return [];
    const limit = (this.pages.get(node.status) ?? 1) * DEFAULT_PAGE_SIZE;
    const result = app.list({ ...this.query(node.status), limit });
    const thresholds = this.settings().misaligned;
    const stale = app.staleIds();
    const children: MemoryNode[] = result.items.map((record): RecordNode => {
      const verdict = recordTaskVerdict(app, record);
      return { kind: 'record', record, misaligned: isMisaligned(record, thresholds), ...(verdict ? { verdict } : {}), ...(stale.has(record.id) ? { stale: true } : {}) };
    });
    if (result.total > result.items.length) children.push({ kind: 'loadMore', status: node.status, remaining: result.total - result.items.length });
    if (children.length === 0) children.push(emptyGroupHint(node.status, this.isFiltered));
    return children;
  }

  /** The proposed deletions the text filter lets through (matched on the question, case-insensitive, as the groups match theirs). */
  private proposals(app: AgentMemoryApp): ReturnType<AgentMemoryApp['proposedDeletions']> {
    const all = app.proposedDeletions();
    const text = this.filterState.text?.toLowerCase();
    return text ? all.filter((p) => p.question.toLowerCase().includes(text)) : all;
  }

  /** The list query for one group under the current sort and filter. */
  query(status: RecordStatus): ListQuery {
    const m = this.settings().misaligned;
    return {
      status,
      sort: this.sortKey,
      text: this.filterState.text,
      language: this.filterState.language,
      misalignedOnly: this.filterState.misalignedOnly || undefined,
      misaligned: { minInputSimilarity: m.minInputSimilarity, maxOutputSimilarity: m.maxOutputSimilarity },
    };
  }

  /** `sorted by utility · filter: "icu", python, misaligned` (the view's title-bar description). */
  describe(): string {
    const parts = [`sorted by ${this.sortKey}`];
    const filters = this.filterParts();
    if (filters.length) parts.push(`filter: ${filters.join(', ')}`);
    return parts.join(' · ');
  }

  /** `Sorted by recency (newest first). Showing records matching "icu", python.` (the view's message). */
  message(): string {
    const filters = this.filterParts();
    const sort = `Sorted by ${SORT_TEXT[this.sortKey]}.`;
    return filters.length ? `${sort} Showing records matching ${filters.join(', ')}.` : `${sort} No filter.`;
  }

  private filterParts(): string[] {
    const f = this.filterState;
    return [f.text ? `"${f.text}"` : '', f.language ?? '', f.misalignedOnly ? 'misaligned only' : ''].filter(Boolean);
  }

  private updateDescription(): void {
    if (!this.view) return;
    this.view.description = this.describe();
    // The message is left unset while the memory is empty so the welcome content shows.
    const counts = this.host.current?.counts();
    const nonEmpty = counts ? counts.pending + counts.active + counts.deleted > 0 : this.nonEmpty;
    this.view.message = nonEmpty ? this.message() : undefined;
  }

  dispose(): void {
    this.scheduleRefresh.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
