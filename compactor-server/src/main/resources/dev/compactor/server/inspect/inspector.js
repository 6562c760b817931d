// The inspector works without this script (every link is a page); with it, "show the original"
// fetches the originals and shows them in place, and a second click hides them.
document.addEventListener('click', function (event) {
  var link = event.target.closest && event.target.closest('a.recover');
  if (!link) {
    return;
  }
  event.preventDefault();
  var box = link.nextElementSibling;
  if (!box.hidden && box.dataset.loaded === '1') {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  if (box.dataset.loaded === '1') {
    return;
  }
  box.textContent = 'loading…';
  fetch(link.dataset.fragment, { credentials: 'same-origin' })
    .then(function (r) {
      if (!r.ok) {
        throw new Error('the server answered ' + r.status);
      }
      return r.text();
    })
    .then(function (html) {
      // the fragment is this server's own markup with every stored value escaped
      var doc = new DOMParser().parseFromString(html, 'text/html');
      box.replaceChildren.apply(box, Array.prototype.slice.call(doc.body.childNodes));
      box.dataset.loaded = '1';
    })
    .catch(function (e) {
      box.textContent = 'could not load the originals: ' + e.message;
    });
});
