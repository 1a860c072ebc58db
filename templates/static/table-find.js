// A long table's finder (partials/table.html): keeps the rows that hold every word the reader types, in the order
// they choose, and says how many it shows. A numeric column orders by each cell's figure (data-sort), any other by
// its text. The words and order are kept in the address (?q=…&order=…), so a link reproduces the view.
(function () {
  function count(form, shown, total) {
    var group = form.getAttribute("data-group");
    function grouped(n) { return String(n).replace(/\B(?=(\d{3})+$)/g, group); }
    return form.getAttribute("data-count").replace("{shown}", grouped(shown)).replace("{total}", grouped(total));
  }

  // A row's key in a column: the number of its cell's data-sort, else its heading's text; null where a cell of a
  // column of numbers has none (a model that starts on no configuration).
  function sortKey(row, column) {
    var cell = row.cells[column];
    if (column > 0) return cell.hasAttribute("data-sort") ? Number(cell.getAttribute("data-sort")) : null;
    var main = cell.querySelector(".main");
    return (main || cell).textContent.trim();
  }

  function compare(a, b, direction, collator) {
    if (a.key === null || b.key === null) {  // a cell without a figure goes last either way
      return a.key === b.key ? a.index - b.index : a.key === null ? 1 : -1;
    }
    var order = typeof a.key === "number" ? a.key - b.key : collator.compare(a.key, b.key);
    return order ? order * direction : a.index - b.index;
  }

  function setUp(form) {
    var table = document.getElementById(form.getAttribute("data-find")).querySelector("table");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var texts = rows.map(function (row) { return row.textContent.toLowerCase(); });
    // Each order's column by its key: the rows' headings first, then the table's columns (data-keys) in order.
    var columns = Object.create(null);
    columns.row = 0;
    form.getAttribute("data-keys").split(" ").forEach(function (key, index) { columns[key] = index + 1; });
    var collator = new Intl.Collator(document.documentElement.lang, { numeric: true, sensitivity: "base" });
    var output = form.querySelector(".table-find-count");

    var ordered = "";  // the order the rows stand in now: moving thousands of rows costs a layout, so only on a change

    function apply() {
      var words = form.elements.q.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      rows.forEach(function (row, index) {
        var keep = words.every(function (word) { return texts[index].indexOf(word) >= 0; });
        if (row.hidden === keep) row.hidden = !keep;
        if (keep) shown += 1;
      });
      if (form.elements.order.value !== ordered) arrange(form.elements.order.value);
      output.textContent = count(form, shown, rows.length);
      remember();
    }

    function arrange(value) {
      var order = value.split(":");
      var column = order[0] in columns ? columns[order[0]] : -1;
      var entries = rows.map(function (row, index) {
        return { row: row, index: index, key: column < 0 ? index : sortKey(row, column) };
      });
      entries.sort(function (a, b) {
        return column < 0 ? a.index - b.index : compare(a, b, order[1] === "desc" ? -1 : 1, collator);
      });
      var fragment = document.createDocumentFragment();
      entries.forEach(function (entry) { fragment.appendChild(entry.row); });
      body.appendChild(fragment);
      ordered = value;
    }

    function remember() {
      var params = new URLSearchParams(window.location.search);
      ["q", "order"].forEach(function (name) {
        var value = form.elements[name].value;
        if (value) params.set(name, value); else params.delete(name);
      });
      var query = params.toString();
      window.history.replaceState(null, "", window.location.pathname + (query ? "?" + query : "") + window.location.hash);
    }

    var asked = new URLSearchParams(window.location.search);
    form.elements.q.value = asked.get("q") || "";
    if (asked.get("order") && form.querySelector('option[value="' + CSS.escape(asked.get("order")) + '"]')) {
      form.elements.order.value = asked.get("order");
    }
    form.elements.q.addEventListener("input", apply);
    form.elements.order.addEventListener("change", apply);
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.hidden = false;
    apply();
  }

  Array.prototype.forEach.call(document.querySelectorAll("form.table-find"), setUp);
})();
