// "Paste a config.json": the config is read, counted and sized by the site's own Python (vramsite/importers/
// in_page.py) in Pyodide, whose files the page names in data-importer (publish/in_page_importer.py), loaded on the
// first paste and kept for the next. What the field says is on its <details> (data-loading, ...).

var importer = null;

function loadImporter(root) {
  var base = new URL(root.getAttribute("data-importer") + "/", window.location.href).href;
  return import(base + "pyodide.mjs").then(function (module) { return module.loadPyodide({ indexURL: base }); })
    .then(function (py) {
      return Promise.all(["engine.zip", "data.zip"].map(function (name) {
        return fetch(base + name).then(function (response) {
          if (!response.ok) throw new Error(response.status);
          return response.arrayBuffer();
        });
      })).then(function (archives) {
        archives.forEach(function (archive) { py.unpackArchive(new Uint8Array(archive), "zip", { extractDir: "/importer" }); });
        py.runPython("import sys; sys.path.insert(0, '/importer'); from vramsite.importers.in_page import size_pasted_json");
        return py.globals.get("size_pasted_json");
      });
    });
}

// The pasted config's model and calculator file, handed to ``choose``; or what the importer refuses, beside the box.
export function sizePasted(root, data, choose) {
  var words = root.querySelector(".calc-paste").dataset, said = root.querySelector("#calc-config-error");
  var text = root.querySelector("#calc-config").value;
  if (!text.trim()) { said.textContent = words.empty; return; }
  said.textContent = importer ? words.sizing : words.loading;
  importer = importer || loadImporter(root);
  importer.then(function (size) {
    var found = JSON.parse(size("/importer/site", text));
    if (found.problems) {  // one line each, as the importer words them
      said.style.whiteSpace = "pre-line";
      said.textContent = found.problems.join("\n");
      return;
    }
    said.textContent = "";
    choose(Object.assign({}, found.model, { name: words.name, pasted: true }), found.file);
  }).catch(function () { importer = null; said.textContent = words.failed; });  // not loaded, or Pyodide failed
}
