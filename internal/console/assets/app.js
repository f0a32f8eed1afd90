// recalld console: a page over the public HTTP API. Every call carries the
// operator's key (when the server has keys) and the user it acts for in
// X-Recall-User, exactly as a bot's call would. The DOM is built with
// createElement and textContent only, never from HTML strings, so stored
// text cannot run as markup.
'use strict';

// ---------- i18n ----------

const STRINGS = {
  en: {
    'brand': 'recalld console', 'nav.users': 'Users', 'nav.key': 'API key', 'lang': '中文',
    'health.users': 'Users', 'health.messages': 'Messages', 'health.events': 'Events', 'health.profiles': 'Profiles',
    'health.memos': 'Memos', 'health.memories': 'Pinned', 'health.backlog': 'Index backlog',
    'health.backlog.detail': '{pending} pending · {unvectored} without vector', 'health.failed': 'Failed jobs',
    'health.embedder': 'Embedder', 'health.store': 'Store breaker', 'health.reloads': 'Config reloads',
    'health.conflicts': 'Conflicts found', 'health.status': 'Status', 'health.brain': 'Brain',
    'users.title': 'Users', 'users.search': 'Search by user id (prefix)', 'users.filter.failed': 'only users with failed jobs',
    'users.filter.backlog': 'only users with unindexed messages', 'users.clear': 'show all',
    'users.id': 'User', 'users.messages': 'Messages', 'users.events': 'Events', 'users.profiles': 'Profiles',
    'users.memos': 'Memos', 'users.memories': 'Pinned', 'users.failed': 'Failed jobs', 'users.last': 'Last activity',
    'users.size': 'Text', 'users.none': 'No users yet.', 'users.more': 'More users', 'users.open': 'Open user',
    'tab.messages': 'Messages', 'tab.events': 'Events', 'tab.profiles': 'Profiles', 'tab.memos': 'Memos',
    'tab.memories': 'Pinned', 'tab.jobs': 'Jobs', 'tab.recall': 'Recall playground',
    'user.forget': 'Forget this user', 'user.forget.confirm': 'Delete every message, event, profile, memo and pinned memory of {user}? This cannot be undone.',
    'user.forgotten': 'Forgot {user}: {n} messages deleted',
    'msg.mode': 'Show', 'msg.mode.list': 'Time order', 'msg.mode.lexical': 'Lexical search', 'msg.mode.semantic': 'Semantic search',
    'msg.query': 'Query', 'msg.role': 'Role', 'msg.any': 'any', 'msg.conversation': 'Conversation', 'msg.group': 'Group',
    'msg.since': 'Since', 'msg.until': 'Until', 'msg.go': 'Search', 'msg.time': 'Time', 'msg.sender': 'Sender',
    'msg.text': 'Text', 'msg.score': 'Score', 'msg.context': 'In context', 'msg.delete': 'Delete',
    'msg.delete.confirm': 'Delete message {id}? Its index entries go with it.', 'msg.deleted': 'Message deleted',
    'msg.more': 'More', 'msg.none': 'No messages match.', 'msg.considered': '{n} messages in the filter',
    'msg.context.title': 'Message {id} in its conversation',
    'ev.query': 'Search events (empty: timeline)', 'ev.original': 'As the bot wrote it', 'ev.absolute': 'Absolute form',
    'ev.notabs': 'not absolute', 'ev.none': 'No events.', 'ev.more': 'Older events', 'ev.perspective': 'Perspective',
    'pr.none': 'No profiles yet: the historian writes them from ended turns.', 'pr.traits': 'Traits', 'pr.summary': 'Summary',
    'pr.category': 'Category', 'pr.slot': 'Slot', 'pr.value': 'Value', 'pr.polarity': 'Polarity', 'pr.seen': 'Last seen',
    'pr.revisions': 'Revisions', 'pr.rev': 'Revision {n}', 'pr.source': 'Source', 'pr.diff': 'Changes against the current profile',
    'pr.restore': 'Restore', 'pr.restore.confirm': 'Make revision {n} current again (as a new revision)?', 'pr.restored': 'Restored as revision {n}',
    'pr.nodiff': 'Same as the current profile.', 'pr.current': 'current', 'pr.tags': 'Tags',
    'memo.none': 'No memos.', 'memo.group': 'Group', 'memo.sender': 'Sender',
    'mem.none': 'No pinned memories.', 'mem.add': 'Pin a memory', 'mem.content': 'Content', 'mem.group': 'Group (empty: everywhere)',
    'mem.tags': 'Tags (comma separated)', 'mem.save': 'Save', 'mem.edit': 'Edit', 'mem.cancel': 'Cancel', 'mem.delete.confirm': 'Delete pinned memory {id}?',
    'mem.saved': 'Saved', 'mem.deleted': 'Deleted', 'mem.max': '{n} of at most {max}',
    'job.state': 'State', 'job.all': 'all', 'job.none': 'No jobs.', 'job.attempts': 'Attempts', 'job.error': 'Error',
    'job.retry': 'Retry', 'job.retried': 'Job queued again', 'job.purge': 'Purge failed jobs',
    'job.purge.confirm': 'Delete every failed job of {user}?', 'job.purged': '{n} failed jobs purged', 'job.created': 'Created',
    'rc.question': 'Question', 'rc.now': 'Now (for relative times)', 'rc.since': 'From', 'rc.until': 'To', 'rc.role': 'Whose words',
    'rc.role.user': 'the user', 'rc.role.any': 'anyone', 'rc.ask': 'Ask', 'rc.answer': 'Answer', 'rc.view': 'Memory view',
    'rc.preferences': 'Preferences', 'rc.profile': 'Profile', 'rc.constraints': 'Constraints', 'rc.evidence': 'Evidence',
    'rc.conflicts': 'Conflicts', 'rc.limits': 'Limits', 'rc.trace': 'Trace', 'rc.timings': 'Timings', 'rc.noitems': 'Nothing the evidence supports.',
    'rc.kept': 'kept', 'rc.superseded': 'superseded', 'rc.round': 'Round', 'rc.phase': 'Phase', 'rc.tool': 'Tool',
    'rc.args': 'Arguments', 'rc.hits': 'Hits', 'rc.decision': 'Decision', 'rc.asof': 'as of {t}',
    'conf.title': 'Conflicts found since the server started', 'conf.none': 'No conflicts found yet.', 'conf.question': 'Question',
    'conf.topic': 'Topic', 'conf.reason': 'Reason',
    'key.title': 'API key', 'key.help': 'This server requires an API key. It is kept in this browser tab only.',
    'key.save': 'Use key', 'key.clear': 'Forget key', 'ok': 'OK', 'cancel': 'Cancel', 'close': 'Close', 'loading': 'Loading…',
    'err.auth': 'The key was refused (401).', 'err.forbidden': 'This key may not act for this user (403).',
  },
  zh: {
    'brand': 'recalld 控制台', 'nav.users': '用户', 'nav.key': 'API 密钥', 'lang': 'English',
    'health.users': '用户', 'health.messages': '消息', 'health.events': '事件', 'health.profiles': '画像',
    'health.memos': '备忘', 'health.memories': '置顶记忆', 'health.backlog': '索引积压',
    'health.backlog.detail': '{pending} 待索引 · {unvectored} 缺向量', 'health.failed': '失败任务',
    'health.embedder': '向量模型', 'health.store': '存储熔断', 'health.reloads': '配置重载',
    'health.conflicts': '发现的冲突', 'health.status': '状态', 'health.brain': '推理',
    'users.title': '用户', 'users.search': '按用户 ID 搜索（前缀）', 'users.filter.failed': '只看有失败任务的用户',
    'users.filter.backlog': '只看有未索引消息的用户', 'users.clear': '显示全部',
    'users.id': '用户', 'users.messages': '消息', 'users.events': '事件', 'users.profiles': '画像',
    'users.memos': '备忘', 'users.memories': '置顶', 'users.failed': '失败任务', 'users.last': '最近活动',
    'users.size': '文本量', 'users.none': '还没有用户。', 'users.more': '更多用户', 'users.open': '打开用户',
    'tab.messages': '消息', 'tab.events': '事件', 'tab.profiles': '画像', 'tab.memos': '备忘',
    'tab.memories': '置顶记忆', 'tab.jobs': '任务', 'tab.recall': '回忆试验',
    'user.forget': '遗忘此用户', 'user.forget.confirm': '删除 {user} 的全部消息、事件、画像、备忘和置顶记忆？此操作无法撤销。',
    'user.forgotten': '已遗忘 {user}：删除了 {n} 条消息',
    'msg.mode': '显示', 'msg.mode.list': '按时间', 'msg.mode.lexical': '关键词搜索', 'msg.mode.semantic': '语义搜索',
    'msg.query': '查询', 'msg.role': '角色', 'msg.any': '任意', 'msg.conversation': '会话', 'msg.group': '群',
    'msg.since': '起', 'msg.until': '止', 'msg.go': '搜索', 'msg.time': '时间', 'msg.sender': '发送者',
    'msg.text': '内容', 'msg.score': '得分', 'msg.context': '上下文', 'msg.delete': '删除',
    'msg.delete.confirm': '删除消息 {id}？它的索引会一并删除。', 'msg.deleted': '消息已删除',
    'msg.more': '更多', 'msg.none': '没有匹配的消息。', 'msg.considered': '筛选范围内共 {n} 条消息',
    'msg.context.title': '消息 {id} 及其上下文',
    'ev.query': '搜索事件（留空：时间线）', 'ev.original': '机器人原文', 'ev.absolute': '绝对化文本',
    'ev.notabs': '未完全绝对化', 'ev.none': '没有事件。', 'ev.more': '更早的事件', 'ev.perspective': '视角',
    'pr.none': '还没有画像：历史学家会根据结束的对话轮次生成。', 'pr.traits': '特征', 'pr.summary': '摘要',
    'pr.category': '类别', 'pr.slot': '槽位', 'pr.value': '值', 'pr.polarity': '倾向', 'pr.seen': '最近出现',
    'pr.revisions': '修订历史', 'pr.rev': '修订 {n}', 'pr.source': '来源', 'pr.diff': '与当前画像的差异',
    'pr.restore': '恢复', 'pr.restore.confirm': '把修订 {n} 恢复为当前画像（作为新修订）？', 'pr.restored': '已恢复为修订 {n}',
    'pr.nodiff': '与当前画像相同。', 'pr.current': '当前', 'pr.tags': '标签',
    'memo.none': '没有备忘。', 'memo.group': '群', 'memo.sender': '发送者',
    'mem.none': '没有置顶记忆。', 'mem.add': '置顶一条记忆', 'mem.content': '内容', 'mem.group': '群（留空：所有场合）',
    'mem.tags': '标签（逗号分隔）', 'mem.save': '保存', 'mem.edit': '编辑', 'mem.cancel': '取消', 'mem.delete.confirm': '删除置顶记忆 {id}？',
    'mem.saved': '已保存', 'mem.deleted': '已删除', 'mem.max': '{n} / 最多 {max}',
    'job.state': '状态', 'job.all': '全部', 'job.none': '没有任务。', 'job.attempts': '尝试次数', 'job.error': '错误',
    'job.retry': '重试', 'job.retried': '任务已重新排队', 'job.purge': '清除失败任务',
    'job.purge.confirm': '删除 {user} 的所有失败任务？', 'job.purged': '已清除 {n} 个失败任务', 'job.created': '创建时间',
    'rc.question': '问题', 'rc.now': '当前时间（用于相对时间）', 'rc.since': '从', 'rc.until': '到', 'rc.role': '谁说的',
    'rc.role.user': '用户本人', 'rc.role.any': '任何人', 'rc.ask': '提问', 'rc.answer': '回答', 'rc.view': '记忆视图',
    'rc.preferences': '偏好', 'rc.profile': '个人信息', 'rc.constraints': '约束', 'rc.evidence': '证据',
    'rc.conflicts': '冲突', 'rc.limits': '局限', 'rc.trace': '过程', 'rc.timings': '耗时', 'rc.noitems': '证据不支持任何结论。',
    'rc.kept': '保留', 'rc.superseded': '已被取代', 'rc.round': '轮', 'rc.phase': '阶段', 'rc.tool': '工具',
    'rc.args': '参数', 'rc.hits': '命中', 'rc.decision': '决定', 'rc.asof': '截至 {t}',
    'conf.title': '服务启动以来发现的冲突', 'conf.none': '还没有发现冲突。', 'conf.question': '问题',
    'conf.topic': '主题', 'conf.reason': '原因',
    'key.title': 'API 密钥', 'key.help': '此服务需要 API 密钥。密钥只保存在当前浏览器标签页中。',
    'key.save': '使用密钥', 'key.clear': '清除密钥', 'ok': '确定', 'cancel': '取消', 'close': '关闭', 'loading': '加载中…',
    'err.auth': '密钥被拒绝（401）。', 'err.forbidden': '此密钥无权代表该用户（403）。',
  },
};

const state = {
  lang: localStorage.getItem('recalld.lang') || ((navigator.language || 'en').toLowerCase().startsWith('zh') ? 'zh' : 'en'),
  key: sessionStorage.getItem('recalld.key') || '',
  usersFilter: '',
};

function t(k, vars) {
  let s = (STRINGS[state.lang] && STRINGS[state.lang][k]) || STRINGS.en[k] || k;
  if (vars) for (const [n, v] of Object.entries(vars)) s = s.split('{' + n + '}').join(String(v));
  return s;
}

// ---------- DOM helpers ----------

// h builds an element: attrs sets properties (on* as listeners, class,
// dataset), children are nodes or text.
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'style') Object.assign(el.style, v); // CSSOM: allowed by the page's CSP, a style attribute is not
    else if (k === 'value') el.value = v;
    else if (k in el && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); return el; }

// fill replaces el's children with kids (nodes, text, arrays; null skipped).
function fill(el, ...kids) {
  clear(el);
  for (const k of kids.flat(Infinity)) if (k !== null && k !== undefined && k !== false) el.append(k);
  return el;
}

function fmtTime(s) {
  if (!s) return '';
  const d = new Date(s);
  if (isNaN(d)) return s;
  return d.toLocaleString(state.lang === 'zh' ? 'zh-CN' : 'en-GB', { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });
}

function fmtBytes(n) {
  if (n < 1024) return n + ' B';
  if (n < 1 << 20) return (n / 1024).toFixed(1) + ' KB';
  return (n / (1 << 20)).toFixed(1) + ' MB';
}

// toRFC3339 reads a datetime-local input as local time.
function toRFC3339(v) { return v ? new Date(v).toISOString() : undefined; }

function badge(text, cls) { return h('span', { class: 'badge ' + (cls || text) }, text); }

function toast(msg) {
  const el = document.getElementById('toast');
  el.textContent = msg;
  el.classList.add('show');
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => el.classList.remove('show'), 3000);
}

function errorBox(err) { return h('div', { class: 'error', role: 'alert' }, err.message || String(err)); }

// highlight marks the query's words in text: whole words, and for Chinese
// the characters pairs the lexical index matches on.
function highlight(text, query) {
  const terms = new Set();
  for (const w of (query || '').toLowerCase().split(/[\s"“”「」'’,，。.!！?？;；:：()（）]+/)) {
    if (!w) continue;
    if (/[\u3400-\u9fff]/.test(w)) {
      if (w.length <= 2) terms.add(w);
      for (let i = 0; i + 1 < w.length; i++) terms.add(w.slice(i, i + 2));
    } else if (w.length > 1) terms.add(w);
  }
  if (!terms.size) return [text];
  const lower = text.toLowerCase();
  const marks = new Array(text.length).fill(false);
  for (const term of terms) {
    let i = lower.indexOf(term);
    while (i >= 0) { for (let j = i; j < i + term.length; j++) marks[j] = true; i = lower.indexOf(term, i + 1); }
  }
  const out = [];
  let i = 0;
  while (i < text.length) {
    let j = i;
    while (j < text.length && marks[j] === marks[i]) j++;
    out.push(marks[i] ? h('mark', null, text.slice(i, j)) : text.slice(i, j));
    i = j;
  }
  return out;
}

// ---------- API ----------

class APIError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }
}

async function api(method, path, opts = {}) {
  const headers = { Accept: 'application/json' };
  if (state.key) headers.Authorization = 'Bearer ' + state.key;
  if (opts.user) headers['X-Recall-User'] = opts.user;
  let body;
  if (opts.body !== undefined) { headers['Content-Type'] = 'application/json'; body = JSON.stringify(opts.body); }
  let url = path;
  if (opts.query) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.query)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
    const s = q.toString();
    if (s) url += '?' + s;
  }
  const resp = await fetch(url, { method, headers, body });
  const text = await resp.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (_) { /* not JSON */ }
  if (!resp.ok) {
    const e = (data && data.error) || {};
    if (resp.status === 401) { askKey(t('err.auth')); }
    throw new APIError(resp.status, e.code || String(resp.status), (e.message || text || resp.statusText) + ' (' + resp.status + ')');
  }
  return data;
}

// ---------- dialogs ----------

function modal(title, body, buttons) {
  const dlg = document.getElementById('dialog');
  const form = clear(document.getElementById('dialog-form'));
  form.append(h('h2', null, title), body, h('div', { class: 'row' }, buttons));
  if (!dlg.open) dlg.showModal();
  return dlg;
}

function confirmDialog(text) {
  return new Promise((resolve) => {
    const dlg = modal(text, h('div'), [
      h('button', { type: 'button', class: 'danger', id: 'confirm-ok', onclick: () => { dlg.close(); resolve(true); } }, t('ok')),
      h('button', { type: 'button', onclick: () => { dlg.close(); resolve(false); } }, t('cancel')),
    ]);
  });
}

function askKey(reason) {
  const input = h('input', { type: 'password', id: 'key-input', class: 'grow', autocomplete: 'off', value: state.key });
  const dlg = modal(t('key.title'), h('div', null, reason ? h('p', { class: 'error' }, reason) : null, h('p', { class: 'muted' }, t('key.help')), input), [
    h('button', { type: 'button', class: 'primary', id: 'key-save', onclick: () => {
      state.key = input.value.trim();
      sessionStorage.setItem('recalld.key', state.key);
      dlg.close(); route();
    } }, t('key.save')),
    h('button', { type: 'button', onclick: () => { state.key = ''; sessionStorage.removeItem('recalld.key'); dlg.close(); route(); } }, t('key.clear')),
    h('button', { type: 'button', onclick: () => dlg.close() }, t('cancel')),
  ]);
  input.focus();
}

// ---------- health panel ----------

async function renderHealth() {
  const el = document.getElementById('health');
  let health, users, conflicts;
  try {
    [health, users, conflicts] = await Promise.all([
      api('GET', '/healthz'),
      api('GET', '/users', { query: { limit: 1 } }).catch((e) => ({ error: e })),
      api('GET', '/conflicts', { query: { limit: 1 } }).catch((e) => ({ error: e })),
    ]);
  } catch (e) { fill(el, errorBox(e)); return; }
  const tot = (users && users.totals) || {};
  const jobs = tot.jobs || {};
  const stateClass = (v, ok, warn) => (v === ok ? 'state-ok' : v === warn ? 'state-warn' : 'state-bad');
  const card = (id, label, value, cls, onclick, detail) => h('div', { class: 'card' + (onclick ? ' click' : ''), id: 'health-' + id, onclick, tabindex: onclick ? 0 : undefined },
    h('div', { class: 'label' }, label), h('div', { class: 'value ' + (cls || '') }, value), detail ? h('div', { class: 'small muted' }, detail) : null);
  const n = (v) => (v === undefined ? '–' : String(v));
  fill(el, 
    card('status', t('health.status'), health.status, stateClass(health.status, 'ok'), null, health.version),
    card('users', t('health.users'), n(tot.users), '', () => { state.usersFilter = ''; go('#/'); }),
    card('messages', t('health.messages'), n(tot.messages)),
    card('events', t('health.events'), n(tot.events)),
    card('profiles', t('health.profiles'), n(tot.profiles)),
    card('memos', t('health.memos'), n(tot.memos)),
    card('memories', t('health.memories'), n(tot.memories)),
    card('backlog', t('health.backlog'), n((health.pending > 0 ? health.pending : 0) + (health.unvectored || 0)),
      health.pending > 0 || health.unvectored > 0 ? 'state-warn' : 'state-ok',
      () => { state.usersFilter = 'backlog'; go('#/'); }, t('health.backlog.detail', { pending: health.pending, unvectored: health.unvectored })),
    card('failed', t('health.failed'), n(jobs.failed), jobs.failed > 0 ? 'state-bad' : 'state-ok', () => { state.usersFilter = 'failed'; go('#/'); }),
    card('embedder', t('health.embedder'), health.semantic, stateClass(health.semantic, 'ok', 'off'), null, health.embedder),
    card('store', t('health.store'), health.store, stateClass(health.store, 'closed', 'half-open')),
    card('reloads', t('health.reloads'), n(health.config && health.config.reloads), '', null,
      health.config && health.config.restart_required && health.config.restart_required.length ? health.config.restart_required.join(', ') : null),
    card('conflicts', t('health.conflicts'), n(conflicts && conflicts.total), '', () => go('#/conflicts')),
    card('brain', t('health.brain'), health.brain || '–'),
  );
}

// ---------- routing ----------

function go(hash) { if (location.hash === hash) route(); else location.hash = hash; }

async function route() {
  const main = clear(document.getElementById('main'));
  renderHealth();
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  try {
    if (parts[0] === 'u' && parts[1]) await renderUser(main, parts[1], parts[2] || 'messages');
    else if (parts[0] === 'conflicts') await renderConflicts(main);
    else await renderUsers(main);
  } catch (e) { main.append(errorBox(e)); }
}

// ---------- users ----------

async function renderUsers(main) {
  const input = h('input', { type: 'search', id: 'user-search', class: 'grow', placeholder: t('users.search'), value: state.usersPrefix || '' });
  const list = h('div', { id: 'users' });
  const filterNote = state.usersFilter ? h('div', { class: 'row' }, badge(t('users.filter.' + state.usersFilter), 'warn'),
    h('button', { type: 'button', class: 'link', onclick: () => { state.usersFilter = ''; route(); } }, t('users.clear'))) : null;
  main.append(h('h1', null, t('users.title')),
    h('form', { class: 'row', onsubmit: (e) => { e.preventDefault(); state.usersPrefix = input.value.trim(); load(''); } },
      input, h('button', { type: 'submit', class: 'primary', id: 'user-search-go' }, t('msg.go'))), filterNote || '', list);
  const table = h('table', { id: 'users-table' }, h('thead', null, h('tr', null,
    h('th', null, t('users.id')), h('th', { class: 'num' }, t('users.messages')), h('th', { class: 'num' }, t('users.events')),
    h('th', { class: 'num' }, t('users.profiles')), h('th', { class: 'num' }, t('users.memos')), h('th', { class: 'num' }, t('users.memories')),
    h('th', { class: 'num' }, t('users.failed')), h('th', null, t('users.last')), h('th', { class: 'num' }, t('users.size')))));
  const tbody = h('tbody');
  table.append(tbody);
  list.append(h('div', { class: 'scroll' }, table));
  const more = h('button', { type: 'button', id: 'users-more', onclick: () => load(more.dataset.after) }, t('users.more'));
  more.hidden = true;
  list.append(h('div', { class: 'row' }, more));
  let gen = 0;
  async function load(after) {
    const mine = ++gen;
    if (!after) clear(tbody);
    const data = await api('GET', '/users', { query: { prefix: state.usersPrefix, after, limit: 50 } });
    if (mine !== gen) return;
    let users = data.users;
    if (state.usersFilter === 'failed') users = users.filter((u) => u.jobs_failed > 0);
    if (state.usersFilter === 'backlog') users = users.filter((u) => u.indexed < u.messages);
    for (const u of users) {
      const href = '#/u/' + encodeURIComponent(u.user_id) + '/messages';
      tbody.append(h('tr', null,
        h('td', null, h('a', { href, class: 'user-link' }, u.user_id)),
        h('td', { class: 'num' }, u.messages), h('td', { class: 'num' }, u.events), h('td', { class: 'num' }, u.profiles),
        h('td', { class: 'num' }, u.memos), h('td', { class: 'num' }, u.memories),
        h('td', { class: 'num' + (u.jobs_failed ? ' state-bad' : '') }, u.jobs_failed),
        h('td', { class: 'time' }, fmtTime(u.last_active)), h('td', { class: 'num' }, fmtBytes(u.text_bytes))));
    }
    if (!tbody.children.length) tbody.append(h('tr', null, h('td', { colspan: 9, class: 'empty' }, t('users.none'))));
    more.hidden = !data.next_after;
    more.dataset.after = data.next_after || '';
  }
  await load('');
}

// ---------- one user ----------

const TABS = ['messages', 'events', 'profiles', 'memos', 'memories', 'jobs', 'recall'];

async function renderUser(main, user, tab) {
  if (!TABS.includes(tab)) tab = 'messages';
  const base = '#/u/' + encodeURIComponent(user) + '/';
  main.append(
    h('div', { class: 'row' }, h('h1', { class: 'grow', id: 'user-title' }, user),
      h('button', { type: 'button', class: 'danger', id: 'forget-user', onclick: () => forgetUser(user) }, t('user.forget'))),
    h('nav', { class: 'tabs' }, TABS.map((name) => h('a', { href: base + name, class: name === tab ? 'on' : '', id: 'tab-' + name }, t('tab.' + name)))),
  );
  const pane = h('div', { id: 'pane-' + tab });
  main.append(pane);
  const render = { messages: tabMessages, events: tabEvents, profiles: tabProfiles, memos: tabMemos, memories: tabMemories, jobs: tabJobs, recall: tabRecall }[tab];
  await render(pane, user);
}

async function forgetUser(user) {
  if (!(await confirmDialog(t('user.forget.confirm', { user })))) return;
  try {
    const r = await api('DELETE', '/users/me', { user });
    toast(t('user.forgotten', { user, n: r.deleted }));
    go('#/');
  } catch (e) { toast(e.message); }
}

function messageRow(user, m, query, onDeleted) {
  const tr = h('tr', { class: 'msg', dataset: { id: m.message_id } },
    h('td', { class: 'time' }, fmtTime(m.created_at)),
    h('td', null, badge(m.role, 'role')),
    h('td', { class: 'small' }, m.sender_name || m.sender_id || ''),
    h('td', { class: 'small muted' }, m.group_id ? m.conversation_id + ' · ' + m.group_id : m.conversation_id),
    h('td', { class: 'text' }, highlight(m.content, query)),
    h('td', { class: 'num small' }, m.score ? m.score.toFixed(3) : ''),
    h('td', null, h('div', { class: 'row' },
      h('button', { type: 'button', class: 'link ctx', onclick: () => showContext(user, m.message_id) }, t('msg.context')),
      onDeleted ? h('button', { type: 'button', class: 'link danger del', onclick: async () => {
        if (!(await confirmDialog(t('msg.delete.confirm', { id: m.message_id })))) return;
        try { await api('DELETE', '/messages/' + encodeURIComponent(m.message_id), { user }); toast(t('msg.deleted')); onDeleted(tr); } catch (e) { toast(e.message); }
      } }, t('msg.delete')) : null)));
  return tr;
}

function messageTable(id) {
  const tbody = h('tbody');
  const table = h('table', { id, class: 'msgs' }, h('thead', null, h('tr', null, h('th', null, t('msg.time')), h('th', null, t('msg.role')), h('th', null, t('msg.sender')),
    h('th', null, t('msg.conversation')), h('th', null, t('msg.text')), h('th', { class: 'num' }, t('msg.score')), h('th'))), tbody);
  return { table: h('div', { class: 'scroll' }, table), tbody };
}

async function showContext(user, id) {
  const body = h('div', null, t('loading'));
  const dlg = modal(t('msg.context.title', { id }), body, [h('button', { type: 'button', onclick: () => dlg.close() }, t('close'))]);
  try {
    const r = await api('GET', '/messages/' + encodeURIComponent(id) + '/neighbors', { user, query: { before: 8, after: 8 } });
    const { table, tbody } = messageTable('context-table');
    for (const m of r.before) tbody.append(messageRow(user, m, ''));
    const anchor = messageRow(user, r.anchor, '');
    anchor.classList.add('anchor');
    tbody.append(anchor);
    for (const m of r.after) tbody.append(messageRow(user, m, ''));
    fill(body, table);
  } catch (e) { fill(body, errorBox(e)); }
}

async function tabMessages(pane, user) {
  const mode = h('select', { id: 'msg-mode' }, ['list', 'lexical', 'semantic'].map((m) => h('option', { value: m }, t('msg.mode.' + m))));
  const query = h('input', { type: 'search', id: 'msg-query', placeholder: t('msg.query') });
  const role = h('select', { id: 'msg-role' }, h('option', { value: '' }, t('msg.any')), ['user', 'assistant', 'system'].map((r) => h('option', { value: r }, r)));
  const conv = h('input', { id: 'msg-conv', size: 10 });
  const group = h('input', { id: 'msg-group', size: 10 });
  const since = h('input', { type: 'datetime-local', id: 'msg-since' });
  const until = h('input', { type: 'datetime-local', id: 'msg-until' });
  const lab = (k, el) => h('label', null, t(k), el);
  const out = h('div', { id: 'msg-results' });
  const form = h('form', { class: 'row', onsubmit: (e) => { e.preventDefault(); if (query.value.trim() && mode.value === 'list') mode.value = 'lexical'; run(''); } },
    lab('msg.mode', mode), h('label', { class: 'grow' }, t('msg.query'), query), lab('msg.role', role), lab('msg.conversation', conv),
    lab('msg.group', group), lab('msg.since', since), lab('msg.until', until), h('button', { type: 'submit', class: 'primary', id: 'msg-go' }, t('msg.go')));
  pane.append(form, out);
  const { table, tbody } = messageTable('messages-table');
  const info = h('div', { class: 'small muted', id: 'msg-info' });
  const more = h('button', { type: 'button', id: 'msg-more', hidden: true, onclick: () => run(more.dataset.cursor) }, t('msg.more'));
  out.append(info, table, h('div', { class: 'row' }, more));
  let gen = 0; // a newer search makes an older one's answer stale
  async function run(cursor) {
    const mine = ++gen;
    if (!cursor) clear(tbody);
    const filter = { role: role.value || undefined, conversation_id: conv.value.trim() || undefined, group_id: group.value.trim() || undefined,
      since: toRFC3339(since.value), until: toRFC3339(until.value) };
    let page;
    try {
      if (mode.value === 'list' || !query.value.trim()) {
        page = await api('GET', '/messages', { user, query: { role: filter.role, conversation_id: filter.conversation_id, since: filter.since, until: filter.until, page_size: 50, cursor } });
      } else if (mode.value === 'lexical') {
        page = await api('POST', '/search/lexical', { user, body: { query_text: query.value, match: 'any', filter, page_size: 50, cursor: cursor || undefined } });
      } else {
        page = await api('POST', '/search/semantic', { user, body: { query_text: query.value, filter, top_k: 50 } });
      }
    } catch (e) { if (mine === gen) out.prepend(errorBox(e)); return; }
    if (mine !== gen) return;
    const q = mode.value === 'list' ? '' : query.value;
    for (const m of page.hits) tbody.append(messageRow(user, m, q, (tr) => tr.remove()));
    if (!tbody.children.length) tbody.append(h('tr', null, h('td', { colspan: 7, class: 'empty' }, t('msg.none'))));
    info.textContent = t('msg.considered', { n: page.considered }) + (page.notes && page.notes.length ? ' · ' + page.notes.join('; ') : '');
    more.hidden = !page.next_cursor;
    more.dataset.cursor = page.next_cursor || '';
  }
  await run('');
}

function eventRow(e) {
  return h('div', { class: 'item event' },
    h('div', { class: 'row small muted' }, fmtTime(e.timestamp_utc), badge(e.perspective), badge(e.request_type),
      e.group_id ? h('span', null, t('msg.group') + ' ' + e.group_id) : null, e.sender_name ? h('span', null, e.sender_name) : null,
      e.is_absolute ? null : badge(t('ev.notabs'), 'warn'), e.score !== undefined ? h('span', null, t('msg.score') + ' ' + Number(e.score).toFixed(3)) : null),
    h('div', { class: 'pair' },
      h('div', null, h('div', { class: 'small muted' }, t('ev.absolute')), h('div', { class: 'quote' }, e.content)),
      h('div', null, h('div', { class: 'small muted' }, t('ev.original')), h('div', { class: 'quote' }, e.original))),
    e.warning ? h('div', { class: 'small state-warn' }, e.warning) : null);
}

async function tabEvents(pane, user) {
  const query = h('input', { type: 'search', id: 'ev-query', class: 'grow', placeholder: t('ev.query') });
  const group = h('input', { id: 'ev-group', size: 10, placeholder: t('msg.group') });
  const out = h('div', { id: 'ev-results' });
  const more = h('button', { type: 'button', id: 'ev-more', hidden: true, onclick: () => run(more.dataset.before) }, t('ev.more'));
  pane.append(h('form', { class: 'row', onsubmit: (e) => { e.preventDefault(); run(''); } }, query, group, h('button', { type: 'submit', class: 'primary' }, t('msg.go'))), out, h('div', { class: 'row' }, more));
  let gen = 0;
  async function run(before) {
    const mine = ++gen;
    if (!before) clear(out);
    more.hidden = true;
    try {
      if (query.value.trim()) {
        const r = await api('POST', '/events/search', { user, body: { query: query.value, top_k: 50, target_group_id: group.value.trim() || undefined } });
        if (mine !== gen) return;
        for (const e of r.events) out.append(eventRow(e));
        if (r.warnings && r.warnings.length) out.prepend(h('div', { class: 'small state-warn' }, r.warnings.join('; ')));
      } else {
        const r = await api('GET', '/events', { user, query: { group_id: group.value.trim(), before, limit: 50 } });
        if (mine !== gen) return;
        for (const e of r.events) out.append(eventRow(e));
        more.hidden = !r.next_before;
        more.dataset.before = r.next_before || '';
      }
    } catch (e) { if (mine === gen) out.append(errorBox(e)); }
    if (mine === gen && !out.children.length) out.append(h('div', { class: 'empty' }, t('ev.none')));
  }
  await run('');
}

function traitKey(tr) { return tr.category + '\u0000' + (tr.slot || '') + '\u0000' + tr.value + '\u0000' + (tr.polarity || ''); }

function traitsTable(traits, marks) {
  const byCat = [...traits].sort((a, b) => (a.category + a.slot).localeCompare(b.category + b.slot));
  return h('div', { class: 'scroll' }, h('table', { class: 'traits' },
    h('thead', null, h('tr', null, h('th', null, t('pr.category')), h('th', null, t('pr.slot')), h('th', null, t('pr.value')), h('th', null, t('pr.polarity')), h('th', null, t('pr.seen')))),
    h('tbody', null, byCat.map((tr) => h('tr', { class: marks ? marks(tr) : '' },
      h('td', null, tr.category), h('td', { class: 'small' }, tr.slot || ''), h('td', null, tr.value),
      h('td', null, tr.polarity ? badge(tr.polarity, tr.polarity === 'negative' ? 'warn' : 'ok') : ''), h('td', { class: 'time' }, fmtTime(tr.last_seen)))))));
}

// profileDiff shows what a revision holds against the current profile:
// traits only in the revision (restoring brings them back) and traits only
// in the current profile (restoring drops them).
function profileDiff(rev, cur) {
  const curKeys = new Set((cur.traits || []).map(traitKey));
  const revKeys = new Set((rev.traits || []).map(traitKey));
  const added = (rev.traits || []).filter((tr) => !curKeys.has(traitKey(tr)));
  const removed = (cur.traits || []).filter((tr) => !revKeys.has(traitKey(tr)));
  const parts = [];
  if (added.length || removed.length) {
    parts.push(traitsTable([...added, ...removed], (tr) => (revKeys.has(traitKey(tr)) ? 'diff-add' : 'diff-del')));
  }
  if ((rev.summary || '') !== (cur.summary || '')) {
    parts.push(h('div', { class: 'quote diff-del' }, cur.summary || '∅'), h('div', { class: 'quote diff-add' }, rev.summary || '∅'));
  }
  return parts.length ? parts : [h('div', { class: 'empty' }, t('pr.nodiff'))];
}

async function tabProfiles(pane, user) {
  const r = await api('GET', '/profiles', { user, query: { limit: 200 } });
  if (!r.profiles.length) { pane.append(h('div', { class: 'empty' }, t('pr.none'))); return; }
  const list = h('div', { class: 'row', id: 'profile-list' });
  const detail = h('div', { id: 'profile-detail' });
  pane.append(list, detail);
  for (const p of r.profiles) {
    list.append(h('button', { type: 'button', class: 'profile-pick', dataset: { type: p.entity_type, id: p.entity_id }, onclick: () => show(p.entity_type, p.entity_id) },
      p.entity_type + ' · ' + (p.name ? p.name + ' (' + p.entity_id + ')' : p.entity_id)));
  }
  async function show(type, id) {
    fill(detail, t('loading'));
    const path = '/profiles/' + encodeURIComponent(type) + '/' + encodeURIComponent(id);
    try {
      const [cur, revs] = await Promise.all([api('GET', path, { user }), api('GET', path + '/revisions', { user })]);
      const revPane = h('div', { id: 'revision-diff' });
      fill(detail, 
        h('h2', null, (cur.name || cur.entity_id) + ' ', badge(t('pr.rev', { n: cur.revision }), 'current')),
        cur.tags && cur.tags.length ? h('div', { class: 'row small' }, t('pr.tags') + ':', cur.tags.map((x) => badge(x))) : null,
        h('h2', null, t('pr.summary')), h('div', { class: 'quote' }, cur.summary || '∅'),
        h('h2', null, t('pr.traits')), traitsTable(cur.traits || []),
        h('h2', null, t('pr.revisions')),
        h('div', { class: 'scroll' }, h('table', { id: 'revisions' }, h('thead', null, h('tr', null, h('th', null, '#'), h('th', null, t('pr.source')), h('th', null, t('job.created')), h('th'))),
          h('tbody', null, revs.revisions.map((rv) => h('tr', { dataset: { rev: rv.revision } },
            h('td', null, rv.revision), h('td', { class: 'small' }, rv.source), h('td', { class: 'time' }, fmtTime(rv.created_at)),
            h('td', null, rv.revision === cur.revision ? badge(t('pr.current'), 'current') : h('div', { class: 'row' },
              h('button', { type: 'button', class: 'link diff', onclick: () => fill(revPane, h('h2', null, t('pr.diff') + ' · ' + t('pr.rev', { n: rv.revision })), ...profileDiff(rv.profile, cur)) }, t('pr.diff')),
              h('button', { type: 'button', class: 'restore', onclick: async () => {
                if (!(await confirmDialog(t('pr.restore.confirm', { n: rv.revision })))) return;
                try {
                  const p = await api('POST', path + '/restore', { user, body: { revision: rv.revision } });
                  toast(t('pr.restored', { n: p.revision }));
                  show(type, id);
                } catch (e) { toast(e.message); }
              } }, t('pr.restore'))))))))),
        revPane);
    } catch (e) { fill(detail, errorBox(e)); }
  }
  await show(r.profiles[0].entity_type, r.profiles[0].entity_id);
}

async function tabMemos(pane, user) {
  const r = await api('GET', '/memos', { user, query: { limit: 200 } });
  if (!r.memos.length) { pane.append(h('div', { class: 'empty' }, t('memo.none'))); return; }
  for (const m of r.memos) {
    pane.append(h('div', { class: 'item memo' }, h('div', { class: 'row small muted' }, fmtTime(m.timestamp_utc), badge(m.request_type),
      m.group_id ? t('memo.group') + ' ' + (m.group_name || m.group_id) : null, m.sender_name || m.sender_id ? t('memo.sender') + ' ' + (m.sender_name || m.sender_id) : null),
    h('div', { class: 'quote' }, m.content)));
  }
}

function tagsOf(s) { return s.split(/[,，]/).map((x) => x.trim()).filter(Boolean); }

async function tabMemories(pane, user) {
  const content = h('textarea', { id: 'mem-content', maxlength: 1000 });
  const group = h('input', { id: 'mem-group' });
  const tags = h('input', { id: 'mem-tags' });
  const list = h('div', { id: 'mem-list' });
  pane.append(h('h2', null, t('mem.add')), h('form', { id: 'mem-add', onsubmit: async (e) => {
    e.preventDefault();
    try {
      await api('POST', '/memories', { user, body: { content: content.value, group_id: group.value.trim() || undefined, tags: tagsOf(tags.value) } });
      content.value = ''; toast(t('mem.saved')); load();
    } catch (err) { toast(err.message); }
  } }, h('label', null, t('mem.content'), content), h('div', { class: 'row' }, h('label', null, t('mem.group'), group), h('label', { class: 'grow' }, t('mem.tags'), tags),
    h('button', { type: 'submit', class: 'primary', id: 'mem-save' }, t('mem.save')))), list);
  async function load() {
    clear(list);
    const r = await api('GET', '/memories', { user });
    list.append(h('div', { class: 'small muted' }, t('mem.max', { n: r.memories.length, max: r.max })));
    if (!r.memories.length) list.append(h('div', { class: 'empty' }, t('mem.none')));
    for (const m of r.memories) list.append(memoryItem(m));
  }
  function memoryItem(m) {
    const el = h('div', { class: 'item memory', dataset: { id: m.id } });
    const view = () => fill(el, 
      h('div', { class: 'row small muted' }, m.id, m.group_id ? badge(t('msg.group') + ' ' + m.group_id) : null, (m.tags || []).map((x) => badge(x)), fmtTime(m.updated_at)),
      h('div', { class: 'quote mem-text' }, m.content),
      h('div', { class: 'row' }, h('button', { type: 'button', class: 'edit', onclick: edit }, t('mem.edit')),
        h('button', { type: 'button', class: 'danger delete', onclick: async () => {
          if (!(await confirmDialog(t('mem.delete.confirm', { id: m.id })))) return;
          try { await api('DELETE', '/memories/' + encodeURIComponent(m.id), { user }); toast(t('mem.deleted')); el.remove(); } catch (e) { toast(e.message); }
        } }, t('msg.delete'))));
    const edit = () => {
      const c = h('textarea', { class: 'edit-content', maxlength: 1000, value: m.content });
      const g = h('input', { class: 'edit-group', value: m.group_id || '' });
      const tg = h('input', { class: 'edit-tags', value: (m.tags || []).join(', ') });
      fill(el, c, h('div', { class: 'row' }, h('label', null, t('mem.group'), g), h('label', { class: 'grow' }, t('mem.tags'), tg)),
        h('div', { class: 'row' }, h('button', { type: 'button', class: 'primary save', onclick: async () => {
          try {
            m = await api('PATCH', '/memories/' + encodeURIComponent(m.id), { user, body: { content: c.value, group_id: g.value.trim(), tags: tagsOf(tg.value) } });
            toast(t('mem.saved')); view();
          } catch (e) { toast(e.message); }
        } }, t('mem.save')), h('button', { type: 'button', onclick: view }, t('mem.cancel'))));
    };
    view();
    return el;
  }
  await load();
}

async function tabJobs(pane, user) {
  const sel = h('select', { id: 'job-state', onchange: () => load() }, h('option', { value: '' }, t('job.all')),
    ['pending', 'processing', 'done', 'failed'].map((s) => h('option', { value: s }, s)));
  const list = h('div', { id: 'job-list' });
  pane.append(h('div', { class: 'row' }, h('label', null, t('job.state'), sel),
    h('button', { type: 'button', class: 'danger', id: 'job-purge', onclick: async () => {
      if (!(await confirmDialog(t('job.purge.confirm', { user })))) return;
      try { const r = await api('DELETE', '/jobs', { user, query: { state: 'failed' } }); toast(t('job.purged', { n: r.deleted })); load(); } catch (e) { toast(e.message); }
    } }, t('job.purge'))), list);
  async function load() {
    clear(list);
    const r = await api('GET', '/jobs', { user, query: { state: sel.value, limit: 200 } });
    if (!r.jobs.length) { list.append(h('div', { class: 'empty' }, t('job.none'))); return; }
    const tbody = h('tbody');
    list.append(h('div', { class: 'scroll' }, h('table', { id: 'jobs-table' }, h('thead', null, h('tr', null, h('th', null, 'id'), h('th', null, t('job.state')),
      h('th', { class: 'num' }, t('job.attempts')), h('th', null, t('job.created')), h('th', null, t('job.error')), h('th'))), tbody)));
    for (const j of r.jobs) {
      tbody.append(h('tr', { dataset: { id: j.id, state: j.state } }, h('td', { class: 'small' }, j.id), h('td', null, badge(j.state)), h('td', { class: 'num' }, j.attempts),
        h('td', { class: 'time' }, fmtTime(j.created_at)), h('td', { class: 'text small' }, j.error || ''),
        h('td', null, j.state === 'failed' ? h('button', { type: 'button', class: 'retry', onclick: async () => {
          try { await api('POST', '/jobs/' + encodeURIComponent(j.id) + '/retry', { user }); toast(t('job.retried')); load(); } catch (e) { toast(e.message); }
        } }, t('job.retry')) : null)));
    }
  }
  await load();
}

async function tabRecall(pane, user) {
  const q = h('input', { id: 'rc-question', maxlength: 1000 });
  const now = h('input', { type: 'datetime-local', id: 'rc-now' });
  const since = h('input', { type: 'datetime-local', id: 'rc-since' });
  const until = h('input', { type: 'datetime-local', id: 'rc-until' });
  const role = h('select', { id: 'rc-role' }, h('option', { value: 'user' }, t('rc.role.user')), h('option', { value: 'any' }, t('rc.role.any')));
  const out = h('div', { id: 'rc-out' });
  const lab = (k, el, cls) => h('label', { class: cls }, t(k), el);
  pane.append(h('form', { class: 'row', id: 'rc-form', onsubmit: async (e) => {
    e.preventDefault();
    fill(out, t('loading'));
    const context = { role_pref: role.value, now: toRFC3339(now.value) };
    if (since.value || until.value) context.time_range = { since: toRFC3339(since.value), until: toRFC3339(until.value) };
    try {
      const r = await api('POST', '/recall', { user, body: { question: q.value, context, options: { trace: true } } });
      fill(out, recallView(r));
    } catch (err) { fill(out, errorBox(err)); }
  } }, lab('rc.question', q, 'grow'), lab('rc.now', now), lab('rc.since', since), lab('rc.until', until), lab('rc.role', role),
  h('button', { type: 'submit', class: 'primary', id: 'rc-ask' }, t('rc.ask'))), out);
}

function recallView(r) {
  const evidence = new Map((r.evidence || []).map((e) => [e.message_id, e]));
  const quote = (id) => {
    const e = evidence.get(id);
    if (!e) return h('div', { class: 'quote muted' }, id);
    return h('div', { class: 'quote evidence', dataset: { id } }, h('div', { class: 'small muted' }, fmtTime(e.created_at) + ' · ' + e.role + (e.sender_name ? ' · ' + e.sender_name : '') + ' · ' + id), e.content + (e.cut ? ' …' : ''));
  };
  const section = (name, items) => h('div', null, h('h2', null, t('rc.' + name)),
    items.length ? items.map((it) => h('div', { class: 'item view-item' }, h('div', { class: 'row' }, badge(it.status), h('span', { class: 'small muted' }, t('rc.asof', { t: fmtTime(it.as_of) }))),
      h('div', null, it.statement), it.evidence_ids.map(quote))) : h('div', { class: 'empty' }, '–'));
  const view = r.memory_view;
  const limits = r.limits || {};
  const tm = r.timings || {};
  const stages = ['observe', 'search', 'tools', 'synthesize', 'verify'].filter((s) => tm[s + '_ms'] !== undefined);
  const maxMs = Math.max(1, ...stages.map((s) => tm[s + '_ms']));
  return h('div', { id: 'recall-result' },
    r.answer ? h('div', null, h('h2', null, t('rc.answer')), h('div', { class: 'quote', id: 'rc-answer' }, r.answer)) : null,
    h('h2', null, t('rc.view')),
    !view.preferences.length && !view.profile.length && !view.constraints.length ? h('div', { class: 'empty', id: 'rc-empty' }, t('rc.noitems')) : null,
    section('preferences', view.preferences), section('profile', view.profile), section('constraints', view.constraints),
    r.conflicts && r.conflicts.length ? h('div', { id: 'rc-conflicts' }, h('h2', null, t('rc.conflicts')), r.conflicts.map((c) => h('div', { class: 'item' },
      h('div', { class: 'row' }, h('strong', null, c.topic), badge(c.reason, 'warn')),
      h('div', { class: 'small muted' }, t('rc.kept')), c.kept.map(quote), h('div', { class: 'small muted' }, t('rc.superseded')), c.superseded.map(quote)))) : null,
    h('h2', null, t('rc.evidence')), h('div', { id: 'rc-evidence' }, (r.evidence || []).map((e) => quote(e.message_id))),
    h('h2', null, t('rc.limits')), h('div', { class: 'scroll' }, h('table', { id: 'rc-limits' }, h('tbody', null,
      Object.entries(limits).map(([k, v]) => h('tr', null, h('th', null, k), h('td', null, typeof v === 'object' ? JSON.stringify(v) : String(v))))))),
    stages.length ? h('div', null, h('h2', null, t('rc.timings')), h('table', { id: 'rc-timings' }, h('tbody', null, stages.map((s) => h('tr', null, h('th', null, s),
      h('td', { class: 'num' }, tm[s + '_ms'].toFixed(1) + ' ms'), h('td', { style: { width: '60%' } }, h('div', { class: 'bar', style: { width: (100 * tm[s + '_ms'] / maxMs).toFixed(1) + '%' } }))))))) : null,
    r.trace && r.trace.length ? h('div', null, h('h2', null, t('rc.trace')), h('div', { class: 'scroll' }, h('table', { id: 'rc-trace' },
      h('thead', null, h('tr', null, h('th', null, t('rc.round')), h('th', null, t('rc.phase')), h('th', null, t('rc.tool')), h('th', null, t('rc.args')), h('th', { class: 'num' }, t('rc.hits')), h('th', null, t('rc.decision')))),
      h('tbody', null, r.trace.map((s) => h('tr', null, h('td', null, s.round), h('td', null, s.phase), h('td', null, s.tool || ''),
        h('td', null, s.arguments ? h('pre', null, JSON.stringify(s.arguments, null, 1)) : ''), h('td', { class: 'num' }, s.hits), h('td', { class: 'small' }, s.decision))))))) : null);
}

// ---------- conflicts ----------

async function renderConflicts(main) {
  const r = await api('GET', '/conflicts', { query: { limit: 100 } });
  main.append(h('h1', null, t('conf.title')));
  if (!r.conflicts.length) { main.append(h('div', { class: 'empty' }, t('conf.none'))); return; }
  main.append(h('div', { class: 'scroll' }, h('table', { id: 'conflicts-table' }, h('thead', null, h('tr', null, h('th', null, t('msg.time')), h('th', null, t('users.id')),
    h('th', null, t('conf.question')), h('th', null, t('conf.topic')), h('th', null, t('conf.reason')), h('th', null, t('rc.kept')), h('th', null, t('rc.superseded')))),
  h('tbody', null, r.conflicts.map((c) => h('tr', null, h('td', { class: 'time' }, fmtTime(c.at)),
    h('td', null, h('a', { href: '#/u/' + encodeURIComponent(c.user_id) + '/recall' }, c.user_id)), h('td', null, c.question), h('td', null, c.topic),
    h('td', null, badge(c.reason, 'warn')), h('td', { class: 'small' }, c.kept.join(', ')), h('td', { class: 'small' }, c.superseded.join(', '))))))));
}

// ---------- start ----------

function applyLang() {
  document.documentElement.lang = state.lang === 'zh' ? 'zh-CN' : 'en';
  for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  document.getElementById('lang-toggle').textContent = t('lang');
  document.title = t('brand');
}

document.getElementById('lang-toggle').addEventListener('click', () => {
  state.lang = state.lang === 'zh' ? 'en' : 'zh';
  localStorage.setItem('recalld.lang', state.lang);
  applyLang(); route();
});
document.getElementById('key-button').addEventListener('click', () => askKey(''));
window.addEventListener('hashchange', route);
applyLang();
route();
