// The HTML report's script: filters by rule and file, paging (a page's transcripts are
// drawn from their templates when first shown), and opening folds on a link to inside.
(function () {
  var list = document.getElementById('list');
  var PAGE = +list.dataset.page;
  var all = Array.prototype.slice.call(document.querySelectorAll('section.t'));
  var page = 0;
  var rule = document.getElementById('f-rule');
  var file = document.getElementById('f-file');
  var info = document.getElementById('f-info');
  var prev = document.getElementById('prev');
  var next = document.getElementById('next');

  function fill(section) {
    var template = section.querySelector(':scope > template');
    if (template) {
      section.appendChild(template.content.cloneNode(true));
      template.remove();
    }
  }

  function matches(section, code, part) {
    return (!code || section.dataset.rules.indexOf(' ' + code + ' ') >= 0) &&
      (!part || section.dataset.file.toLowerCase().indexOf(part) >= 0);
  }

  function apply() {
    if (!rule) return;
    var code = rule.value;
    var part = file.value.toLowerCase();
    var shown = all.filter(function (s) { return matches(s, code, part); });
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    if (page >= pages) page = pages - 1;
    var on = new Set(shown.slice(page * PAGE, page * PAGE + PAGE));
    all.forEach(function (section) {
      if (!on.has(section)) {
        section.hidden = true;
        return;
      }
      fill(section);
      section.hidden = false;
      section.querySelectorAll('.finding').forEach(function (note) {
        note.classList.toggle('dim', !!code && note.dataset.code !== code);
      });
    });
    info.textContent = shown.length + ' of ' + all.length + ' transcripts' +
      (pages > 1 ? ' \u00b7 page ' + (page + 1) + ' of ' + pages : '');
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
  }

  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) return;
    for (var p = target; p; p = p.parentElement) {
      if (p.tagName === 'DETAILS') p.open = true;
    }
    target.scrollIntoView();
  }

  function turn(by) {
    page += by;
    apply();
    window.scrollTo(0, document.getElementById('filters').offsetTop);
  }

  if (rule) {
    rule.addEventListener('change', function () { page = 0; apply(); });
    file.addEventListener('input', function () { page = 0; apply(); });
    prev.addEventListener('click', function () { turn(-1); });
    next.addEventListener('click', function () { turn(1); });
  }
  window.addEventListener('hashchange', reveal);
  apply();
  reveal();
})();
