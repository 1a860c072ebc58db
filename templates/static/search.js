// The search page: the words in ?q= (the header's search box and this page's form send them) looked up in the
// index of the page's language that build.py build writes with Pagefind (vramsite/publish/search.py), each page
// found listed with its title and the passage that matched.
(function () {
  var list = document.querySelector(".search-results"), status = document.querySelector(".search-status");
  var words = new URLSearchParams(window.location.search).get("q") || "";
  document.getElementById("search-words").value = words;
  if (!list || !words.trim()) return;
  var bundle = list.getAttribute("data-bundle");
  import(bundle + "pagefind.js").then(function (pagefind) {
    return pagefind.options({ bundlePath: bundle }).then(function () { return pagefind.search(words); });
  }).then(function (search) {
    return Promise.all(search.results.slice(0, 20).map(function (result) { return result.data(); }));
  }).then(function (pages) {
    status.textContent = pages.length ? status.getAttribute("data-found").replace("{count}", String(pages.length))
      : status.getAttribute("data-none");
    pages.forEach(function (page) {
      var item = document.createElement("li"), link = document.createElement("a"), passage = document.createElement("p");
      link.href = page.url;
      link.textContent = page.meta.title;
      passage.innerHTML = page.excerpt;  // the page's own text, escaped by Pagefind, the words marked
      item.appendChild(link);
      item.appendChild(passage);
      list.appendChild(item);
    });
  });
})();
