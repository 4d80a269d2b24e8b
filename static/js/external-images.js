// Images in issue text come from other sites and stay placeholders (links) until the rater asks:
// loading one tells its site who opened the issue, and when. "Load images" reloads the page with
// ?images=load, whose Content-Security-Policy lets https: images in; then, or when the site allows
// external images everywhere, the placeholders become images again.
(function () {
  "use strict";
  const placeholders = Array.from(document.querySelectorAll(".md .external-image[data-src]"));
  if (placeholders.length === 0) return;

  if (document.body.dataset.externalImages === "load") {
    for (const placeholder of placeholders) {
      const image = document.createElement("img");
      const label = placeholder.textContent.replace(/^\[image: |\]$/g, "");
      image.alt = label;
      image.loading = "lazy";
      image.referrerPolicy = "no-referrer";
      // Offline, blocked or gone: the placeholder comes back, saying so, with its link to the image.
      image.addEventListener("error", function () {
        placeholder.textContent = `[image not loaded: ${label}]`;
        placeholder.classList.add("is-unloaded");
        image.replaceWith(placeholder);
      }, { once: true });
      image.src = placeholder.dataset.src;
      placeholder.replaceWith(image);
    }
    return;
  }

  const url = new URL(window.location.href);
  url.searchParams.set("images", "load");
  const bar = document.createElement("p");
  bar.className = "external-images-bar";
  bar.setAttribute("role", "note");
  const count = placeholders.length;
  bar.append(
    `This page has ${count} image${count === 1 ? "" : "s"} from other sites, not loaded so that those sites ` +
      "cannot see when you read it. ",
  );
  const button = document.createElement("a");
  button.className = "button";
  button.href = url.toString();
  button.textContent = "Load images";
  button.dataset.testid = "load-images";
  bar.append(button);
  const first = placeholders[0].closest(".md");
  first.parentNode.insertBefore(bar, first);
})();
